import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { sqlRef } from '../../db/sql-ref';
import type { FundraiserRow } from './fundraisers.repo';

type Q = Db | Knex.Transaction;

/**
 * What the fundraisers module publishes for other modules to read campaigns with: summaries by
 * id, and, for reads that must stay one query (lists, pages, checks), SQL to join or embed.
 * `*Ref` and `onColumn` arguments name a column of the enclosing query (`d.fundraiser_id`).
 */

/** A campaign as other modules name and route it (no story, media or counters). */
export type CampaignSummary = Pick<FundraiserRow, 'id' | 'title' | 'slug' | 'currency' | 'status' | 'visibility' | 'owner_user_id' | 'org_id' | 'deleted_at'>;

const SUMMARY = ['id', 'title', 'slug', 'currency', 'status', 'visibility', 'owner_user_id', 'org_id', 'deleted_at'] as const satisfies ReadonlyArray<keyof CampaignSummary>;

/** One campaign's summary (deleted ones included: `deleted_at` says so); undefined for an unknown id. */
export async function campaignSummary(db: Q, id: string): Promise<CampaignSummary | undefined> {
  return db('fundraisers').where({ id }).first(SUMMARY);
}

/** Summaries by id; unknown ids are absent. */
export async function campaignSummaries(db: Q, ids: string[]): Promise<Map<string, CampaignSummary>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows: CampaignSummary[] = await db('fundraisers').whereIn('id', unique).select(SUMMARY);
  return new Map(rows.map((r) => [r.id, r]));
}

/** A holder's campaigns, oldest first: a user's own (not an organization's), or an organization's. */
export async function campaignsHeldBy(
  db: Q,
  holder: { type: 'user' | 'organization'; id: string },
): Promise<Array<Pick<CampaignSummary, 'id' | 'title' | 'currency'>>> {
  const q = db('fundraisers');
  if (holder.type === 'organization') q.where({ org_id: holder.id });
  else q.where({ owner_user_id: holder.id }).whereNull('org_id');
  return q.orderBy('created_at').select('id', 'title', 'currency');
}

/** How many campaigns exist (deleted ones included), or those whose slug starts with `slugPrefix`. */
export async function campaignCount(db: Q, opts: { slugPrefix?: string } = {}): Promise<number> {
  const q = db('fundraisers');
  if (opts.slugPrefix !== undefined) q.where('slug', 'like', `${opts.slugPrefix}%`);
  const r = await q.count<{ n: number }[]>({ n: '*' });
  return Number(r[0]?.n ?? 0);
}

/** Joins each row's campaign (inner join) as `alias` to a knex query: `joinCampaign(q, 'f', 'd.fundraiser_id')`. */
export function joinCampaign<T extends Knex.QueryBuilder>(q: T, alias: string, onColumn: string): T {
  return q.join(`fundraisers as ${alias}`, `${alias}.id`, onColumn) as T;
}

/** The same join as SQL text for a raw query: `join fundraisers <alias> on <alias>.id = <onRef>`. */
export function campaignJoinSql(alias: string, onRef: string): string {
  return `join fundraisers ${sqlRef(alias)} on ${alias}.id = ${sqlRef(onRef)}`;
}

/** Keeps rows whose joined campaign (`alias`) is listed publicly: public, active or ended, not deleted. */
export function whereCampaignListed<T extends Knex.QueryBuilder>(q: T, alias: string): T {
  return q.whereIn(`${alias}.status`, ['active', 'ended']).where(`${alias}.visibility`, 'public').whereNull(`${alias}.deleted_at`) as T;
}

/** Every campaign's summed counter shards (counters.ts), one row per campaign that has any. */
const COUNTER_SUMS = `(select fundraiser_id, sum(raised_cents) as raised_cents, sum(tips_cents) as tips_cents,
      sum(donation_count) as donation_count, sum(donor_count) as donor_count from fundraiser_counter_shards group by 1)`;

/**
 * Every campaign's money counters as a subquery with columns id, donation_count, donor_count,
 * raised_cents, tips_cents, recurring_donor_count (what integrity checks compare with the gifts they come from).
 */
export function campaignCountersSql(db: Q): Knex.Raw {
  return db.raw(`(select f.id, coalesce(s.donation_count, 0) as donation_count, coalesce(s.donor_count, 0) as donor_count,
      coalesce(s.raised_cents, 0) as raised_cents, coalesce(s.tips_cents, 0) as tips_cents, f.recurring_donor_count
      from fundraisers f left join ${COUNTER_SUMS} s on s.fundraiser_id = f.id)`);
}

