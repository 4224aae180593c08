import type { AppContext } from '../../context';
import type { Db } from '../../db/knex';
import type { Actor } from '../../http/actor';
import { enqueue } from '../../infra/jobs';
import { findProfile } from '../idp';
import { drivenTotals } from '../referrals';
import type { Audience, Period } from './leaderboard.periods';
import * as reads from './leaderboard.reads';
import type { EntryRow } from './leaderboard.reads';
import * as repo from './leaderboard.repo';

export const REFRESH_QUEUE = 'leaderboard.refresh';
/** How stale the ranking may grow before a read asks the worker to rebuild it. */
export const REFRESH_AFTER_S = 60;
/** Reads look at the ranking's age at most this often per process. */
const CHECK_EVERY_MS = 10_000;
const LOCK_ID = 724_310_001;

const SINCE_DAYS: Record<Period, number | null> = { all: null, '30d': 30, '7d': 7 };

/**
 * Rebuilds every period's ranking in one transaction (readers keep the previous one until it
 * commits). A live aggregate over every settled gift is too slow for a public read at a million
 * gifts, so the ranking is precomputed (bench/results/leaderboard.md); one rebuild at a time (advisory lock).
 */
export async function refreshLeaderboard(db: Db, opts: { onlyIfMissing?: boolean } = {}): Promise<void> {
  const now = Date.now();
  const driven = await Promise.all(
    repo.PERIODS.map((p) => drivenTotals(db, { since: SINCE_DAYS[p] === null ? null : new Date(now - SINCE_DAYS[p]! * 86_400_000) })),
  );
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [LOCK_ID]);
    // Concurrent first reads wait here for one build; the ones after it find the ranking made.
    if (opts.onlyIfMissing && (await repo.refreshedAt(trx))) return;
    for (const [i, p] of repo.PERIODS.entries()) await repo.rebuildPeriod(trx, p, driven[i]!);
    await repo.markRefreshed(trx);
  });
  // Fresh statistics after every rebuild: planned on stale ones, a `q` read walks the whole ranking.
  await db.raw('analyze leaderboard_entries');
}

let checkedAt = 0;

/** Builds the ranking now when none exists; asks the worker for a rebuild when it has grown stale. */
async function ensureRanking(ctx: AppContext): Promise<void> {
  if (Date.now() - checkedAt < CHECK_EVERY_MS) return;
  const at = await repo.refreshedAt(ctx.db);
  if (!at) {
    await refreshLeaderboard(ctx.db, { onlyIfMissing: true });
  } else if (Date.now() - at.getTime() > REFRESH_AFTER_S * 1000) {
    await enqueue(ctx.db, REFRESH_QUEUE, {}, { singletonKey: 'leaderboard' });
  }
  checkedAt = Date.now();
}

/** Forget when the ranking was last looked at (tests rebuild it and read at once). */
export function forgetRankingCheck(): void {
  checkedAt = 0;
}

function toRow(e: EntryRow) {
  return {
    rank: e.rank === null ? null : Number(e.rank),
    kind: e.kind,
    user: e.kind === 'user' ? { id: e.user_id!, name: e.name, avatar: e.avatar, profile_slug: e.profile_slug } : null,
    anonymousKey: e.kind === 'anonymous' ? e.anonymous_key : null,
    raised_cents: Number(e.raised_cents),
    given_cents: Number(e.given_cents),
    driven_cents: Number(e.driven_cents),
    impact_cents: Number(e.impact_cents),
  };
}

/** The caller's standing: their ranked row, or rank null with zeros when they are not ranked (nothing yet, or a private profile). */
async function me(db: Db, actor: Actor, period: Period, audience: Audience) {
  const row = await reads.standing(db, actor.userId, period, audience);
  if (row) return toRow(row);
  const p = await findProfile(db, actor.userId);
  return {
    rank: null,
    kind: 'user' as const,
    user: { id: actor.userId, name: p?.name ?? null, avatar: p?.avatar ?? null, profile_slug: p?.profile_slug ?? null },
    anonymousKey: null,
    raised_cents: 0,
    given_cents: 0,
    driven_cents: 0,
    impact_cents: 0,
  };
}

export async function leaderboard(
  ctx: AppContext,
  actor: Actor | null,
  f: { period: Period; audience: Audience; q: string | null; limit: number; offset: number },
) {
  await ensureRanking(ctx);
  const [{ rows, total }, mine] = await Promise.all([reads.page(ctx.db, f), actor ? me(ctx.db, actor, f.period, f.audience) : null]);
  return { data: rows.map(toRow), pagination: { limit: f.limit, offset: f.offset, total }, me: mine };
}
