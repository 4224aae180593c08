import { observeReconciliation } from '../../infra/metrics';
import { defineModule } from '../define-module';
import { daysWithDifferences, latestDifferences } from './reconciliation.repo';
import routes from './reconciliation.routes';
import { recoverPayments } from './recovery.service';
import { reconcileDay, yesterdayUtc } from './reconcile.service';

export const RECOVER_TASK = 'payments.recover';
export const RECONCILE_TASK = 'payments.reconcile';

/** PAYMENT_RECHECK_INTERVAL_S as a crontab line (graphile-worker's crontab counts whole minutes). */
export function everyInterval(seconds: number): string {
  const m = Math.max(1, Math.round(seconds / 60));
  if (m < 60) return `*/${m} * * * *`;
  return `0 */${Math.min(23, Math.max(1, Math.round(m / 60)))} * * *`;
}

observeReconciliation(latestDifferences);

/** Missed processor events recovered, and each day reconciled with the processor (docs/decisions/0016-recovery-and-reconciliation.md). */
export default defineModule({
  name: 'reconciliation',
  routes: [routes],
  jobs: (ctx, collected) => {
    ctx.jobs.register(RECOVER_TASK, async () => {
      // The sandbox with its deliveries off sends no webhook to wait for: every run asks at once.
      const offline = ctx.payments.name === 'sandbox' && ctx.config.SANDBOX_WEBHOOK_URL === 'off';
      const r = await recoverPayments(ctx, collected.webhookHandlers, offline ? 0 : undefined);
      if (r.applied || r.failed) ctx.log.info({ recovery: r }, 'payment recovery: processor state applied');
    });
    ctx.jobs.register(RECONCILE_TASK, async () => {
      const run = await reconcileDay(ctx, yesterdayUtc());
      ctx.log[run.status === 'clean' ? 'info' : 'warn']({ day: run.day, status: run.status, differences: run.differences.length }, 'reconciliation with the processor');
    });
    ctx.jobs
      .schedule({ match: everyInterval(ctx.config.PAYMENT_RECHECK_INTERVAL_S), task: RECOVER_TASK, backfillSeconds: 0 })
      .schedule({ match: '30 2 * * *', task: RECONCILE_TASK, backfillSeconds: 86_400 });
  },
  checks: {
    // check-ledger names the days whose last reconciliation found differences.
    reconciliation: async (db) =>
      (await daysWithDifferences(db)).map((d) => `${d.day}: ${d.n} difference(s) with the processor (GET /admin/reconciliation?day=${d.day})`),
  },
});
