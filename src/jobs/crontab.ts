import type { AppContext } from '../context';
import type { Db } from '../db/knex';
import { pruneDeliveredEvents } from '../events';
import { pruneIdempotencyKeys } from '../http/idempotency';
import { enqueue } from '../infra/jobs';
import { pruneFailedJobs, pruneIdleJobQueues, pruneJobInbox } from '../infra/jobs-prune';
import { pruneExpiredAttestations } from '../integrations/attestation';
import { pruneExpiredIdpCodes, pruneExpiredIdpSessions } from '../integrations/idp';
import { pruneExpiredWithdrawalCodes } from '../modules/communities';
import { pruneExpiredRefreshOwners } from '../modules/idp';
import { activeAccountIds } from '../modules/payouts';
import { expireExports, prunePrivacyRequests } from '../modules/privacy';
import { pruneExpiredVerificationTokens } from '../modules/verification';
import { pruneWebhookDeliveries } from '../modules/webhook-endpoints';

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

// Tables whose rows are worthless once expired (codes, links, sessions, replay records), each
// pruned by its owner; a day of grace so a late click still meets "expired", not "unknown".
const EXPIRING: Array<[table: string, prune: (db: Db, graceDays: number) => Promise<number>]> = [
  ['verification_tokens', pruneExpiredVerificationTokens],
  ['idp_codes', pruneExpiredIdpCodes],
  ['idp_sessions', pruneExpiredIdpSessions],
  ['refresh_token_owners', pruneExpiredRefreshOwners],
  ['used_attestations', pruneExpiredAttestations],
  ['community_withdrawal_codes', pruneExpiredWithdrawalCodes],
  ['privacy_requests', prunePrivacyRequests],
];

export async function pruneOnce(ctx: AppContext): Promise<Record<string, number>> {
  const db = ctx.db;
  const out: Record<string, number> = {};
  const run = async (name: string, prune: () => Promise<number>) => {
    try {
      out[name] = await prune();
    } catch (err) {
      ctx.log.warn({ err, step: name }, 'prune step failed');
    }
  };
  await run('failed_jobs', () => pruneFailedJobs(db, RETENTION.failedJobsDays));
  await run('job_queues', () => pruneIdleJobQueues(db));
  await run('events', () => pruneDeliveredEvents(db, RETENTION.eventsDays));
  await run('job_inbox', () => pruneJobInbox(db, RETENTION.inboxDays));
  // Idempotency keys answer replays for 24 hours (docs/decisions/0010-idempotency-keys.md); the delivery log keeps a month.
  await run('idempotency_keys', () => pruneIdempotencyKeys(db));
  await run('webhook_deliveries', () => pruneWebhookDeliveries(db, RETENTION.webhookDeliveriesDays));
  for (const [table, prune] of EXPIRING) await run(table, () => prune(db, RETENTION.expiredDays));
  // Data exports are downloadable for 7 days (docs/privacy/README.md); then the file goes.
  await run('privacy_exports', () => expireExports(ctx));
  return out;
}

/** Queues a sweep of every active payout account: settled gifts a missed event left behind move on. */
async function refreshPayouts(ctx: AppContext): Promise<void> {
  const ids = await activeAccountIds(ctx.db);
  await ctx.db.transaction(async (trx) => {
    for (const id of ids) await enqueue(trx, SWEEP_QUEUE, { account_id: id }, { singletonKey: id });
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
