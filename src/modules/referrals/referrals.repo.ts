import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** How long a click can drive a later gift. */
export const ATTRIBUTION_DAYS = 30;

export interface ClickRow {
  id: string;
  fundraiser_id: string;
  ref: string;
  referrer_user_id: string | null;
  channel: string | null;
  via_endorser: boolean;
  clicker_user_id: string | null;
  created_at: Date;
}

/** Whether the same caller clicked the same ref to the same campaign within `minutes`. */
export async function clickedRecently(db: Q, callerHash: string, fundraiserId: string, ref: string, minutes: number): Promise<boolean> {
  const row = await db('referral_clicks')
    .where({ caller_hash: callerHash, fundraiser_id: fundraiserId, ref })
    .where('created_at', '>', db.raw(`now() - make_interval(mins => ?)`, [minutes]))
    .first('id');
  return Boolean(row);
}

export async function insertClick(
  trx: Q,
  c: Omit<ClickRow, 'id' | 'created_at'> & { caller_hash: string },
): Promise<void> {
  await trx('referral_clicks').insert(c);
}

/** The donor's last click on this campaign in the attribution window before `at` (last touch wins). */
export async function lastClickBy(trx: Q, userId: string, fundraiserId: string, at: Date): Promise<ClickRow | undefined> {
  return trx('referral_clicks')
    .where({ clicker_user_id: userId, fundraiser_id: fundraiserId })
    .where('created_at', '<=', at)
    .where('created_at', '>', trx.raw(`?::timestamptz - make_interval(days => ?)`, [at, ATTRIBUTION_DAYS]))
    .orderBy('created_at', 'desc')
    .first('*');
}

/**
 * The last click on `ref` for this campaign in the attribution window before `at` (any clicker;
 * the donor's own click first), which gives a ref-attributed gift its channel and click.
 */
export async function lastClickOfRef(trx: Q, ref: string, fundraiserId: string, at: Date, donorUserId: string | null): Promise<ClickRow | undefined> {
  return trx('referral_clicks')
    .where({ fundraiser_id: fundraiserId })
    .whereRaw('lower(ref) = ?', [ref.toLowerCase()])
    .where('created_at', '<=', at)
    .where('created_at', '>', trx.raw(`?::timestamptz - make_interval(days => ?)`, [at, ATTRIBUTION_DAYS]))
    .orderByRaw('(clicker_user_id is not distinct from ?) desc, created_at desc', [donorUserId])
    .first('*');
}

export async function insertAttribution(
  trx: Q,
  a: {
    donation_id: string;
    fundraiser_id: string;
    click_id: string | null;
    referrer_user_id: string | null;
    channel: string | null;
    via_endorser: boolean;
    self_referred: boolean;
    amount_cents: number;
    paid_at: Date;
  },
): Promise<void> {
  await trx('referral_attributions').insert(a).onConflict('donation_id').ignore();
}

/** A refund lowers the driven amount (the refunded amount may include the tip: capped at the gift). */
export async function applyRefund(trx: Q, donationId: string, refundedCents: number, fully: boolean): Promise<void> {
  await trx('referral_attributions')
    .where({ donation_id: donationId })
    .update({
      refunded_cents: fully ? trx.ref('amount_cents') : trx.raw('least(amount_cents, refunded_cents + ?)', [refundedCents]),
    });
}

const NET = '(a.amount_cents - a.refunded_cents)';
const COUNTED = 'not a.self_referred';

/** Money a user's links drove: paid, non-self-referred gifts net of refunds, optionally since a date. */
export async function drivenCents(db: Q, userId: string, since: Date | null = null): Promise<number> {
  const q = db('referral_attributions as a')
    .where('a.referrer_user_id', userId)
    .whereRaw(COUNTED)
    .first(db.raw(`coalesce(sum(${NET}), 0)::bigint as cents`));
  if (since) q.where('a.paid_at', '>=', since);
  const row = (await q) as { cents: string } | undefined;
  return Number(row?.cents ?? 0);
}

/** drivenCents for many users at once (the leaderboard's and the ambassador rail's ranking). */
export async function drivenTotals(db: Q, opts: { since?: Date | null; userIds?: string[] } = {}): Promise<Map<string, number>> {
  const q = db('referral_attributions as a')
    .whereNotNull('a.referrer_user_id')
    .whereRaw(COUNTED)
    .groupBy('a.referrer_user_id')
    .select('a.referrer_user_id as user_id', db.raw(`sum(${NET})::bigint as cents`));
  if (opts.since) q.where('a.paid_at', '>=', opts.since);
  if (opts.userIds) q.whereIn('a.referrer_user_id', opts.userIds);
  const rows = (await q) as Array<{ user_id: string; cents: string }>;
  return new Map(rows.map((r) => [r.user_id, Number(r.cents)]));
}

/** Paid gifts the campaign's shared links drove, per channel (share-channels). */
export async function giftsByChannel(db: Q, fundraiserId: string): Promise<Array<{ channel: string | null; donations: number; raised_cents: number }>> {
  const rows = (await db('referral_attributions as a')
    .where('a.fundraiser_id', fundraiserId)
    .whereRaw(COUNTED)
    .whereRaw('a.refunded_cents < a.amount_cents')
    .groupBy('a.channel')
    .select('a.channel', db.raw('count(*)::int as donations'), db.raw(`sum(${NET})::bigint as raised`))) as Array<{
    channel: string | null;
    donations: number;
    raised: string;
  }>;
  return rows.map((r) => ({ channel: r.channel, donations: Number(r.donations), raised_cents: Number(r.raised) }));
}
