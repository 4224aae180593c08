/**
 * Read-only view of an organization's campaigns, for its public page and its admin dashboard.
 * Foreign tables it reads:
 * - fundraisers (fundraisers): the organization's campaigns and their visibility;
 * - fundraiser_counter_shards (fundraisers): their counters, summed over the shard rows
 *   (docs/decisions/0023-campaign-counters-in-shards.md); read here rather than through the
 *   fundraisers module, which itself asks this module for organization permissions;
 * - fundraiser_donors (donations): unique donors across its public campaigns;
 * - donations (donations): gifts to its campaigns (dashboard totals and the gifts list);
 * - project_updates (updates): updates posted on its public campaigns.
 * Each read is one query, because filters, currency choice, ordering and paging apply to the
 * joined rows together; org_members is this module's own table.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

/** One campaign counter summed over its shard rows, as a scalar subquery on the campaign `idRef`. */
const counterSql = (idRef: string, column: 'raised_cents' | 'donation_count' | 'donor_count') =>
  `(select coalesce(sum(cs.${column}), 0) from fundraiser_counter_shards cs where cs.fundraiser_id = ${idRef})`;

type Q = Db | Knex.Transaction;

/** Campaigns anyone may read (spec visibility rules): live, not private, not deleted. */
const PUBLIC_CAMPAIGN = `f.status in ('active','paused','ended') and f.visibility <> 'private' and f.deleted_at is null`;

/** Campaigns a public listing may name: readable and public (unlisted ones are for holders of the link only). */
const LISTED_CAMPAIGN = `${PUBLIC_CAMPAIGN} and f.visibility = 'public'`;

/** Public stats of one organization over its publicly readable campaigns. */
export async function publicStats(db: Q, orgId: string) {
  const { rows } = await db.raw(
    `with c as (select f.id, ${counterSql('f.id', 'raised_cents')} as raised_cents from fundraisers f where f.org_id = ? and ${PUBLIC_CAMPAIGN})
     select (select coalesce(sum(raised_cents), 0) from c)::bigint as total_raised_cents,
            (select count(*) from c)::int as fundraiser_count,
            (select count(distinct d.donor_key) from fundraiser_donors d join c on c.id = d.fundraiser_id where d.paid_count > 0)::int as donor_count,
            (select count(*) from org_members m where m.org_id = ?)::int as member_count`,
    [orgId, orgId],
  );
  const r = rows[0];
  return {
    total_raised_cents: Number(r.total_raised_cents),
    fundraiser_count: r.fundraiser_count,
    donor_count: r.donor_count,
    member_count: r.member_count,
  };
}

/**
 * Dashboard totals over a set of organizations (a conglomerate's tree), in the currency most of
 * their campaigns use (amounts in different currencies are never added): raised = paid gifts
 * less what was refunded of them; unique donors = distinct signed-in donors of paid gifts.
 */
export async function dashboardTotals(db: Q, orgIds: string[]) {
  const { rows } = await db.raw(
    `with c as (select id, status, currency from fundraisers where org_id = any(?::uuid[]) and deleted_at is null),
          cur as (select coalesce((select upper(currency) from c group by upper(currency) order by count(*) desc, upper(currency) limit 1), 'USD') as code),
          paid as (select d.* from donations d join c on c.id = d.fundraiser_id
                    where d.status = 'paid' and upper(d.currency) = (select code from cur))
     select (select code from cur) as currency,
            (select coalesce(sum(amount_cents - refunded_cents), 0) from paid)::bigint as raised,
            (select count(distinct donor_user_id) from paid where donor_user_id is not null)::int as donors,
            (select count(*) from paid)::int as donations,
            (select count(*) from c)::int as campaigns,
            (select count(*) from c where status = 'active')::int as active,
            (select count(distinct user_id) from org_members where org_id = any(?::uuid[]))::int as members`,
    [orgIds, orgIds],
  );
  const r = rows[0];
  return {
    totalRaisedCents: Number(r.raised),
    uniqueDonors: r.donors,
    donationCount: r.donations,
    fundraiserCount: r.campaigns,
    activeFundraiserCount: r.active,
    memberCount: r.members,
    organizationCount: orgIds.length,
    currency: String(r.currency),
  };
}

const countOver = (rows: any[]) => (rows.length ? Number(rows[0].total) : 0);

/** The organization's own non-deleted campaigns, newest first; no private contact columns are read. */
export async function orgFundraisers(db: Q, orgId: string, status: string | undefined, limit: number, offset: number) {
  const q = db('fundraisers').where({ org_id: orgId }).whereNull('deleted_at');
  if (status) q.where({ status });
  const rows = await q
    .clone()
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit)
    .offset(offset)
    .select(
      'id', 'title', 'slug', 'status', 'visibility', 'goal_amount_cents', db.raw(`${counterSql('fundraisers.id', 'raised_cents')} as raised_cents`),
      'currency', db.raw(`${counterSql('fundraisers.id', 'donor_count')} as donor_count`),
      db.raw(`${counterSql('fundraisers.id', 'donation_count')} as donation_count`), 'cover_image', 'owner_user_id', 'org_id', db.raw(`to_char(end_date, 'YYYY-MM-DD') as end_date`),
      'approved_at', 'created_at', db.raw('count(*) over() as total'),
    );
  const total = rows.length || offset === 0 ? countOver(rows) : Number((await q.count<{ n: string }[]>({ n: '*' }))[0].n);
  return { rows, total };
}

/** Gifts to the organization's campaigns, newest first. */
export async function orgDonations(db: Q, orgId: string, status: string | undefined, limit: number, offset: number) {
  const q = db('donations as d').join('fundraisers as f', 'f.id', 'd.fundraiser_id').where('f.org_id', orgId);
  if (status) q.where('d.status', status);
  const rows = await q
    .clone()
    .orderBy([{ column: 'd.created_at', order: 'desc' }, { column: 'd.id', order: 'desc' }])
    .limit(limit)
    .offset(offset)
    .select(
      'd.id', 'd.fundraiser_id', 'f.title', 'f.slug', 'd.amount_cents', 'd.tip_cents', 'd.refunded_cents', 'd.currency', 'd.status',
      'd.anonymous', 'd.donor_name', 'd.donor_email', 'd.message', 'd.created_at', 'd.paid_at', db.raw('count(*) over() as total'),
    );
  const total = rows.length || offset === 0 ? countOver(rows) : Number((await q.count<{ n: string }[]>({ n: '*' }))[0].n);
  return { rows, total };
}

/** Project updates of the organization's public campaigns, newest first (withdrawn ones and unlisted campaigns left out). */
export async function orgUpdates(db: Q, orgId: string, limit: number, offset: number) {
  const q = db('project_updates as u')
    .join('fundraisers as f', 'f.id', 'u.fundraiser_id')
    .where('f.org_id', orgId)
    .whereNull('u.deleted_at')
    .whereRaw(LISTED_CAMPAIGN);
  const rows = await q
    .clone()
    .orderBy([{ column: 'u.created_at', order: 'desc' }, { column: 'u.id', order: 'desc' }])
    .limit(limit)
    .offset(offset)
    .select(
      'u.id', 'u.fundraiser_id', 'f.title as fundraiser_title', 'f.slug as fundraiser_slug', 'u.title', 'u.body', 'u.language',
      'u.like_count', 'u.created_at', 'u.edited_at', db.raw('count(*) over() as total'),
    );
  const total = rows.length || offset === 0 ? countOver(rows) : Number((await q.count<{ n: string }[]>({ n: '*' }))[0].n);
  return { rows, total };
}
