import type { AppContext } from '../context';

/** Registers every queue's handler on the context's worker. Modules add their queues here. */
export function registerJobs(_ctx: AppContext): void {
  // e.g. ctx.jobs.register('mail', (p) => sendQueuedMail(ctx, p));
}
