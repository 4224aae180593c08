import type { AppContext } from '../context';
import { MAIL_QUEUE, sendQueuedMail } from '../integrations/mail';
import { COVER_TINT_QUEUE, coverTintHandler } from './cover-tint';
import { registerSubscribers } from '../events';
import { registerModuleJobs, subscribers } from '../modules';
import { registerSandboxJobs } from '../integrations/payments';
import { registerBackupJobs } from './backups';
import { registerCrontab } from './crontab';

/**
 * Registers every queue's handler on the context's worker: the queues outside modules here, each
 * module's (its module file's `jobs` and `subscribers`) through src/modules/index.ts.
 */
export function registerJobs(ctx: AppContext): void {
  ctx.jobs.register(MAIL_QUEUE, (p, job) => sendQueuedMail(ctx, p, job));
  ctx.jobs.register(COVER_TINT_QUEUE, coverTintHandler(ctx));
  if (ctx.payments.name === 'sandbox') registerSandboxJobs(ctx.jobs, ctx);
  registerModuleJobs(ctx);
  registerSubscribers(ctx, subscribers);
  registerCrontab(ctx);
  registerBackupJobs(ctx);
}
