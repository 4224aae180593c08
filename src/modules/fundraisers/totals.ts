import type { Db } from '../../db/knex';
import { counterSql } from './counters';
import { giftsInLast24hSql } from './paid-buckets.reads';

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

/** Column aliases of totalsColumns(); prefixed so they never clash with `fundraisers.*`. */
const T = {
  total_raised_cents: 't_total_raised_cents',
  total_tips_cents: 't_total_tips_cents',
  donor_count: 't_donor_count',
  donation_count: 't_donation_count',
  donations_last_24h: 't_donations_last_24h',
} as const satisfies Record<keyof FundraiserTotals, string>;

/**
 * The one SQL definition of campaign money totals, as select-list expressions over the
 * fundraisers row aliased `alias`. Hot reads embed it in their single query; fundraiserTotals()
 * uses it too. Money comes from the counters the ledger postings keep in the campaign's shard rows
 * (raised, tips, donation and donor counts, summed: counters.ts counterSql); the 24-hour count adds the campaign's 30-second buckets of
 * paid gifts (fundraiser_paid_buckets, kept by a trigger on donations: at most 2,880 rows
 * whatever the day's volume; read through paid-buckets.reads.ts), evaluated only for the rows a read returns. A bucket is counted
 * when it starts inside the last 24 hours, so the window's oldest 30 seconds may be left out.
 */
export function totalsColumns(alias: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`bad SQL alias ${alias}`);
  const a = alias;
  return [
    `${counterSql(`${a}.id`, 'raised_cents')}::bigint as ${T.total_raised_cents}`,
    `${counterSql(`${a}.id`, 'tips_cents')}::bigint as ${T.total_tips_cents}`,
    `${counterSql(`${a}.id`, 'donor_count')}::int as ${T.donor_count}`,
    `${counterSql(`${a}.id`, 'donation_count')}::int as ${T.donation_count}`,
    `${giftsInLast24hSql(`${a}.id`)}::int as ${T.donations_last_24h}`,
  ].join(', ');
}

/** Reads the totalsColumns() of a result row. */
export function totalsFromRow(row: Record<string, unknown>): FundraiserTotals {
  return {
    total_raised_cents: Number(row[T.total_raised_cents] ?? 0),
    total_tips_cents: Number(row[T.total_tips_cents] ?? 0),
    donor_count: Number(row[T.donor_count] ?? 0),
    donation_count: Number(row[T.donation_count] ?? 0),
    donations_last_24h: Number(row[T.donations_last_24h] ?? 0),
  };
}

/**
 * Totals of many campaigns (stats, review queue, services). Every read goes through
 * totalsColumns(). Unknown ids are absent from the map; callers default to ZERO_TOTALS.
 */
export async function fundraiserTotals(db: Db, ids: string[]): Promise<Map<string, FundraiserTotals>> {
  const out = new Map<string, FundraiserTotals>();
  if (ids.length === 0) return out;
  const r = await db.raw(`select f.id, ${totalsColumns('f')} from fundraisers f where f.id = any(?::uuid[])`, [
    `{${[...new Set(ids)].join(',')}}`,
  ]);
  for (const row of r.rows as Array<Record<string, unknown>>) out.set(String(row.id), totalsFromRow(row));
  return out;
}

export async function totalsOf(db: Db, id: string): Promise<FundraiserTotals> {
  return (await fundraiserTotals(db, [id])).get(id) ?? { ...ZERO_TOTALS };
}
