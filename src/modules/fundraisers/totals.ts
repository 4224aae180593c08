import type { Db } from '../../db/knex';

export interface FundraiserTotals {
  total_raised_cents: number;
  total_tips_cents: number;
  donor_count: number;
  donation_count: number;
  donations_last_24h: number;
}

export const ZERO_TOTALS: FundraiserTotals = Object.freeze({
  total_raised_cents: 0,
  total_tips_cents: 0,
  donor_count: 0,
  donation_count: 0,
  donations_last_24h: 0,
});

/**
 * The single read of campaign money totals. Every read (detail, stats, review queue) goes
 * through here so that the money work can back it with the ledger in one place. Until donations
 * exist it reads the counters stored on fundraisers (all zero); tips and the 24-hour count are 0.
 * Unknown ids are absent from the map; callers default to ZERO_TOTALS.
 */
export async function fundraiserTotals(db: Db, ids: string[]): Promise<Map<string, FundraiserTotals>> {
  const out = new Map<string, FundraiserTotals>();
  if (ids.length === 0) return out;
  const rows = await db('fundraisers')
    .whereIn('id', [...new Set(ids)])
    .select('id', 'raised_cents', 'donor_count', 'donation_count');
  for (const r of rows) {
    out.set(r.id, {
      total_raised_cents: Number(r.raised_cents),
      total_tips_cents: 0,
      donor_count: Number(r.donor_count),
      donation_count: Number(r.donation_count),
      donations_last_24h: 0,
    });
  }
  return out;
}

export async function totalsOf(db: Db, id: string): Promise<FundraiserTotals> {
  return (await fundraiserTotals(db, [id])).get(id) ?? { ...ZERO_TOTALS };
}
