import type { AppContext } from '../context';
import { enqueue } from '../infra/jobs';

/**
 * Periodic work on graphile-worker's crontab: every worker process knows the schedule, and each
 * tick is queued once (graphile-worker records it in known_crontabs), whichever worker sees it.
 */
export const PRUNE_TASK = 'maintenance.prune';
export const PAYOUT_REFRESH_TASK = 'payouts.refresh';
const LEADERBOARD_REFRESH = 'leaderboard.refresh';
const SWEEP_QUEUE = 'payouts.sweep';

/** Kept this long after their last use: a failed job for operators to inspect, a handled event for support. */
export const RETENTION = { failedJobsDays: 14, eventsDays: 7, inboxDays: 14, expiredDays: 1, webhookDeliveriesDays: 30 };

// Tables whose rows are worthless once expired (codes, links, sessions, replay records); a day
// of grace so a late click still meets "expired", not "unknown".
const EXPIRING = ['verification_tokens', 'idp_codes', 'idp_sessions', 'refresh_token_owners', 'used_attestations', 'community_withdrawal_codes'];

export async function pruneOnce(ctx: AppContext): Promise<Record<string, number>> {
  const db = ctx.db;
  const out: Record<string, number> = {};
  const run = async (name: string, sql: string, bindings: unknown[] = []) => {
    try {
      const r = await db.raw(sql, bindings as never[]);
      out[name] = r.rowCount ?? 0;
    } catch (err) {
      ctx.log.warn({ err, step: name }, 'prune step failed');
    }
  };
  // Finished jobs leave graphile-worker's table as they complete; permanently failed ones stay for `jobs failed` a while.
  await run('failed_jobs', `delete from graphile_worker._private_jobs where attempts >= max_attempts and locked_at is null
    and updated_at < now() - make_interval(days => ?)`, [RETENTION.failedJobsDays]);
  await run('job_queues', `delete from graphile_worker._private_job_queues q where locked_at is null
    and not exists (select 1 from graphile_worker._private_jobs j where j.job_queue_id = q.id)`);
  // An event is delivered once no job refers to it any more (dispatch and every subscriber ran).
  await run('events', `delete from events e where e.created_at < now() - make_interval(days => ?)
    and not exists (select 1 from graphile_worker._private_jobs j where j.payload->>'event_id' = e.id::text)`, [RETENTION.eventsDays]);
  await run('job_inbox', 'delete from job_inbox where handled_at < now() - make_interval(days => ?)', [RETENTION.inboxDays]);
  // Idempotency keys answer replays for 24 hours (decisions Part 3); the delivery log keeps a month.
  await run('idempotency_keys', `delete from idempotency_keys where created_at < now() - interval '24 hours'`);
  await run('webhook_deliveries', `delete from webhook_deliveries where status <> 'pending' and created_at < now() - make_interval(days => ?)`, [RETENTION.webhookDeliveriesDays]);
  for (const t of EXPIRING) {
    await run(t, `delete from ${t} where expires_at < now() - make_interval(days => ?)`, [RETENTION.expiredDays]);
  }
  return out;
}

/** Queues a sweep of every active payout account: settled gifts a missed event left behind move on. */
async function refreshPayouts(ctx: AppContext): Promise<void> {
  const rows: Array<{ id: string }> = await ctx.db('processor_accounts').where({ status: 'active' }).select('id');
  await ctx.db.transaction(async (trx) => {
    for (const r of rows) await enqueue(trx, SWEEP_QUEUE, { account_id: r.id }, { singletonKey: r.id });
  });
}

export function registerCrontab(ctx: AppContext): void {
  ctx.jobs.register(PRUNE_TASK, async () => {
    const n = await pruneOnce(ctx);
    ctx.log.info({ pruned: n }, 'pruned finished jobs, delivered events and expired codes');
  });
  ctx.jobs.register(PAYOUT_REFRESH_TASK, () => refreshPayouts(ctx));
  ctx.jobs
    .schedule({ match: '*/5 * * * *', task: LEADERBOARD_REFRESH, backfillSeconds: 300 })
    .schedule({ match: '17 * * * *', task: PRUNE_TASK, backfillSeconds: 3600 })
    .schedule({ match: '41 * * * *', task: PAYOUT_REFRESH_TASK, backfillSeconds: 3600 });
}
