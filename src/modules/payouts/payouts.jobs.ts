import type { AppContext } from '../../context';
import { SWEEP_QUEUE } from './accounts.service';
import { sweepAccount } from './transfers.service';

/** The sweep runs atomically: its transfers' rows and ledger groups commit with the job's completion. */
export function registerPayoutJobs(ctx: AppContext): void {
  ctx.jobs.registerAtomic(SWEEP_QUEUE, async (payload, _job, trx) => {
    await sweepAccount(ctx, trx, String(payload.account_id));
  });
}
