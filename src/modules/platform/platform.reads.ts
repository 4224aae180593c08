/**
 * Read-only view for the platform counters (the module has no table of its own). Foreign tables
 * it reads, counted in one statement:
 * - fundraisers (fundraisers): live and total campaigns, and their totals counters;
 * - users (idp): how many accounts exist.
 */
import type { Db } from '../../db/knex';
import { counterSql } from '../fundraisers';

export interface PlatformCounts {
  campaigns_live: number;
  campaigns_total: number;
  users_total: number;
  total_raised_cents: number;
  donations_total: number;
}

/**
 * Counts from the real tables. Money comes from the campaigns' totals counters, the same source
 * every campaign read uses (fundraiserTotals), which the money ledger maintains.
 */
export async function platformCounts(db: Db): Promise<PlatformCounts> {
  const { rows } = await db.raw(`
    select
      count(*) filter (where status = 'active' and visibility <> 'private') as campaigns_live,
      count(*) as campaigns_total,
      coalesce(sum(${counterSql('fundraisers.id', 'raised_cents')}), 0) as total_raised_cents,
      coalesce(sum(${counterSql('fundraisers.id', 'donation_count')}), 0) as donations_total,
      (select count(*) from users) as users_total
    from fundraisers where deleted_at is null`);
  const r = rows[0];
  return {
    campaigns_live: Number(r.campaigns_live),
    campaigns_total: Number(r.campaigns_total),
    users_total: Number(r.users_total),
    total_raised_cents: Number(r.total_raised_cents),
    donations_total: Number(r.donations_total),
  };
}
