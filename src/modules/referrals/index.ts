/**
 * Public face of referrals: click tracking and the paid gifts referral links drove. `drivenCents`
 * / `drivenTotals` are the "driven" part of impact (leaderboard, ambassadors); `giftsByChannel`
 * and `giftImpact` fill share-channels and share-impact.
 */
import type { Db } from '../../db/knex';
import * as repo from './referrals.repo';

export { ATTRIBUTION_DAYS } from './referrals.repo';
export { REF_PATTERN } from './referrals.schemas';

/** Cents a user's referral links drove: paid, non-self-referred gifts net of refunds (since `since` when given). */
export function drivenCents(db: Db, userId: string, since: Date | null = null): Promise<number> {
  return repo.drivenCents(db, userId, since);
}

/** drivenCents for every referrer (or the given users) at once: user id -> cents; absent means 0. */
export function drivenTotals(db: Db, opts: { since?: Date | null; userIds?: string[] } = {}): Promise<Map<string, number>> {
  return repo.drivenTotals(db, opts);
}

/** Paid non-self-referred gifts a campaign's shared links drove, per channel (null: unknown channel). */
export function giftsByChannel(db: Db, fundraiserId: string) {
  return repo.giftsByChannel(db, fundraiserId);
}

/** The same gifts summed over every channel. */
export async function giftImpact(db: Db, fundraiserId: string): Promise<{ donations: number; raised_cents: number }> {
  const rows = await repo.giftsByChannel(db, fundraiserId);
  return rows.reduce((s, r) => ({ donations: s.donations + r.donations, raised_cents: s.raised_cents + r.raised_cents }), { donations: 0, raised_cents: 0 });
}
