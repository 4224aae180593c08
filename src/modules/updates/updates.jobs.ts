import type { AppContext } from '../../context';
import { translateUpdateJob } from './translations.service';
import { UPDATE_TRANSLATION_QUEUE } from './updates.service';

/** Machine translations run at-least-once outside a transaction: each write re-checks the update under its lock. */
export function registerUpdateJobs(ctx: AppContext): void {
  ctx.jobs.register(UPDATE_TRANSLATION_QUEUE, (payload) => translateUpdateJob(ctx, String(payload.update_id)));
}
