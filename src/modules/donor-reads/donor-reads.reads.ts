import type { Db } from '../../db/knex';
import { joinCampaign } from '../fundraisers';
import type { DonationStatus } from './donor-reads.schemas';

/**
 * A declared view (read only) of the donations module's gifts, as their donor sees them: this
 * module owns no table; it answers the signed-in donor's own giving (summary, list, yearly
 * statement). Campaign titles come through the fundraisers module's published join.
 */

const iso = (v: Date | string | null | undefined) => (v ? new Date(v).toISOString() : null);

export async function summary(db: Db, userId: string) {
  const row = await db('donations')
    .where({ donor_user_id: userId, status: 'paid' })
    .first(
      db.raw('coalesce(sum(amount_cents), 0)::bigint as amount'),
      db.raw('count(*)::int as n'),
      db.raw('count(distinct fundraiser_id)::int as campaigns'),
      db.raw('min(paid_at) as first'),
      db.raw('max(paid_at) as last'),
    );
  return {
    lifetimeAmountCents: Number(row?.amount ?? 0),
    donationCount: Number(row?.n ?? 0),
    campaignsSupported: Number(row?.campaigns ?? 0),
    firstDonationAt: iso(row?.first),
    lastDonationAt: iso(row?.last),
  };
}

export interface ListFilter {
  status?: DonationStatus;
  fundraiserId?: string;
  limit: number;
  offset: number;
}

/** One page of the donor's gifts, newest first, with the filter's total (window count, one round trip). */
export async function listForDonor(db: Db, userId: string, f: ListFilter) {
  const q = joinCampaign(db('donations as d'), 'f', 'd.fundraiser_id')
    .where('d.donor_user_id', userId)
    .select(
      'd.id', 'd.amount_cents', 'd.tip_cents', 'd.currency', 'd.status', 'd.anonymous', 'd.message', 'd.receipt_id',
      'd.created_at', 'd.paid_at', 'd.refunded_at', 'd.recurring_gift_id', 'f.id as f_id', 'f.title as f_title', 'f.slug as f_slug',
      db.raw('count(*) over() as total'),
    )
    .orderBy([{ column: 'd.created_at', order: 'desc' }, { column: 'd.id', order: 'desc' }])
    .limit(f.limit)
    .offset(f.offset);
  if (f.status) q.andWhere('d.status', f.status);
  if (f.fundraiserId) q.andWhere('d.fundraiser_id', f.fundraiserId);
  const rows = await q;
  let total = rows.length ? Number(rows[0].total) : 0;
  // A page past the end carries no window count; count separately only then.
  if (!rows.length && f.offset > 0) {
    const c = db('donations').where('donor_user_id', userId);
    if (f.status) c.andWhere('status', f.status);
    if (f.fundraiserId) c.andWhere('fundraiser_id', f.fundraiserId);
    total = Number((await c.first(db.raw('count(*)::int as n')))?.n ?? 0);
  }
  const data = rows.map((r: any) => ({
    id: r.id,
    fundraiser: { id: r.f_id, title: r.f_title, slug: r.f_slug },
    amount_cents: Number(r.amount_cents),
    tip_cents: Number(r.tip_cents),
    currency: r.currency,
    status: r.status,
    anonymous: r.anonymous,
    message: r.message ?? null,
    // The receipt id is a capability for the public receipt read, which exists only once paid.
    receipt_id: r.status === 'paid' || r.status === 'refunded' ? r.receipt_id : null,
    created_at: iso(r.created_at)!,
    paid_at: iso(r.paid_at),
    refunded_at: iso(r.refunded_at),
    recurring_gift_id: r.recurring_gift_id ?? null,
  }));
  return { data, total };
}

export interface StatementLine {
  paid_at: string;
  campaign: string;
  amount_cents: number;
  tip_cents: number;
  currency: string;
  receipt_id: string;
}

/** The donor's paid gifts whose payment settled in `year` (UTC), oldest first. */
export async function paidInYear(db: Db, userId: string, year: number): Promise<StatementLine[]> {
  const rows = await joinCampaign(db('donations as d'), 'f', 'd.fundraiser_id')
    .where({ 'd.donor_user_id': userId, 'd.status': 'paid' })
    .andWhere('d.paid_at', '>=', `${year}-01-01T00:00:00Z`)
    .andWhere('d.paid_at', '<', `${year + 1}-01-01T00:00:00Z`)
    .orderBy([{ column: 'd.paid_at', order: 'asc' }, { column: 'd.id', order: 'asc' }])
    .select('d.paid_at', 'f.title', 'd.amount_cents', 'd.tip_cents', 'd.currency', 'd.receipt_id');
  return rows.map((r: any) => ({
    paid_at: iso(r.paid_at)!,
    campaign: r.title,
    amount_cents: Number(r.amount_cents),
    tip_cents: Number(r.tip_cents),
    currency: String(r.currency).toUpperCase(),
    receipt_id: r.receipt_id,
  }));
}
