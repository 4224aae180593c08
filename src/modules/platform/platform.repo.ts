import type { Db } from '../../db/knex';

export interface PlatformCounts {
  campaigns_live: number;
  campaigns_total: number;
  users_total: number;
  total_raised_cents: number;
  donations_total: number;
}

/** Counts from the real tables. Donations come from the `donations` table once it exists. */
export async function platformCounts(db: Db): Promise<PlatformCounts> {
  const { rows } = await db.raw(`
    select
      (select count(*) from fundraisers
        where status = 'active' and visibility <> 'private' and deleted_at is null) as campaigns_live,
      (select count(*) from fundraisers where deleted_at is null) as campaigns_total,
      (select count(*) from users) as users_total,
      to_regclass('public.donations') is not null as has_donations`);
  const r = rows[0];
  let total_raised_cents = 0;
  let donations_total = 0;
  if (r.has_donations) {
    // The donations migration arrives with the payments work; until then these count 0.
    // If its columns differ from amount_cents/status, the headline numbers still answer.
    const d = await db
      .raw(`select coalesce(sum(amount_cents), 0) as cents, count(*) as n from donations where status = 'paid'`)
      .catch(() => null);
    total_raised_cents = Number(d?.rows[0]?.cents ?? 0);
    donations_total = Number(d?.rows[0]?.n ?? 0);
  }
  return {
    campaigns_live: Number(r.campaigns_live),
    campaigns_total: Number(r.campaigns_total),
    users_total: Number(r.users_total),
    total_raised_cents,
    donations_total,
  };
}
