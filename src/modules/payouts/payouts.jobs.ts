import type { AppContext } from '../../context';
import { SWEEP_QUEUE } from './accounts.service';
import { CALL_QUEUE } from './calls.queue';
import { runCall, sweepAccount } from './settle';

/**
 * Not atomic: both call the processor, which must never happen inside a transaction. Each
 * claims and confirms in short transactions of its own, and a re-run re-calls with the same
 * idempotency keys, so at-least-once is exactly once at the processor.
 */
export function registerPayoutJobs(ctx: AppContext): void {
  ctx.jobs.register(SWEEP_QUEUE, async (payload) => {
    await sweepAccount(ctx, String(payload.account_id));
  });
  ctx.jobs.register(CALL_QUEUE, async (payload) => {
    await runCall(ctx, String(payload.call_id));
  });
}
