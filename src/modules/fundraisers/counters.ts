import type { Knex } from 'knex';
import { queryRows } from '../../db/knex';
import { sqlRef } from '../../db/sql-ref';

export interface CounterDelta {
  raised_cents?: number;
  tips_cents?: number;
  donation_count?: number;
  donor_count?: number;
}

export interface CounterResult {
  /** The campaign's holder (its owner; the organization's holder is resolved by the caller when org-held). */
  owner_user_id: string;
  org_id: string | null;
  /** True when this change took the raised total to the goal for the first time. */
  goal_reached_now: boolean;
  /** The goal is set and was not yet reached as this transaction saw it: a commit-time recheck may be due (goalReachedSince). */
  below_goal: boolean;
}

/**
 * One campaign counter summed over its shard rows, as a scalar subquery on the campaign whose id is
 * `idRef` (docs/decisions/0023-campaign-counters-in-shards.md). Every figure shown to anyone reads
 * this; the fundraisers columns of the same names are only the ranking copy (refreshRankingCopy).
 */
export function counterSql(idRef: string, column: 'raised_cents' | 'tips_cents' | 'donation_count' | 'donor_count'): string {
  return `(select coalesce(sum(cs.${column}), 0) from fundraiser_counter_shards cs where cs.fundraiser_id = ${sqlRef(idRef)})`;
}

// Fixed texts (a settlement runs both), past knex's builder and runner.
const COUNTERS_READ_SQL = `select f.owner_user_id, f.org_id, f.goal_amount_cents, f.first_paid_at is null as unpaid,
            f.goal_reached_at is null and f.goal_amount_cents > 0 as below_goal,
            case when f.goal_reached_at is null and f.goal_amount_cents > 0 then ${counterSql('f.id', 'raised_cents')} end as raised
       from fundraisers f where f.id = ?`;
const SHARD_ADD_SQL = `insert into fundraiser_counter_shards as s (fundraiser_id, shard, raised_cents, tips_cents, donation_count, donor_count)
     values (?, counter_shard(), ?, ?, ?, ?)
     on conflict (fundraiser_id, shard) do update set
       raised_cents = s.raised_cents + excluded.raised_cents, tips_cents = s.tips_cents + excluded.tips_cents,
       donation_count = s.donation_count + excluded.donation_count, donor_count = s.donor_count + excluded.donor_count`;

/**
 * Moves a campaign's money counters in the transaction that posts the matching ledger group,
 * without locking the campaign row: the change goes to the shard row of this transaction's
 * connection (migrations/20261201110000_spread_campaign_counters.ts), so settlements of one campaign
 * run side by side. goal_reached_at and first_paid_at are set once, by conditional updates that take
 * the row's lock only in the transaction that sets them (the first gift, the gift that reaches the
 * goal); they run before the shard row is touched, so the order of locks is always campaign, then
 * shard (monthly gifts take the campaign row first too: lockForCounters).
 *
 * The goal is tested on the summed total this transaction sees plus its own change. Two gifts in
 * flight may each see the other's part missing and both stop short of a goal they reach together:
 * `below_goal` tells the caller to test again once committed (goalReachedSince).
 */
export async function adjustCounters(trx: Knex.Transaction, fundraiserId: string, d: CounterDelta): Promise<CounterResult> {
  const r = (await queryRows<Record<string, any>>(trx, COUNTERS_READ_SQL, [fundraiserId]))[0];
  if (!r) throw new Error(`fundraiser ${fundraiserId} not found for counters`);
  if (r.unpaid && (d.donation_count ?? 0) > 0) {
    await trx('fundraisers').where({ id: fundraiserId }).whereNull('first_paid_at').update({ first_paid_at: trx.fn.now() });
  }
  let goalReachedNow = false;
  if (r.below_goal && (d.raised_cents ?? 0) > 0 && Number(r.raised) + (d.raised_cents ?? 0) >= Number(r.goal_amount_cents)) {
    goalReachedNow = (await stampGoal(trx, fundraiserId)) > 0;
  }
  await queryRows(trx, SHARD_ADD_SQL, [fundraiserId, d.raised_cents ?? 0, d.tips_cents ?? 0, d.donation_count ?? 0, d.donor_count ?? 0]);
  return { owner_user_id: r.owner_user_id, org_id: r.org_id, goal_reached_now: goalReachedNow, below_goal: !!r.below_goal && !goalReachedNow };
}

/**
 * Stamps goal_reached_at when the committed total has reached the goal and nobody stamped it yet;
 * answers the number of rows it stamped (0 or 1). Under READ COMMITTED a second stamper waits for
 * the first and then finds the column set, so the goal is reached once.
 */
async function stampGoal(trx: Knex.Transaction, fundraiserId: string, testTotal = false): Promise<number> {
  const q = trx('fundraisers').where({ id: fundraiserId }).whereNull('goal_reached_at').andWhere('goal_amount_cents', '>', 0);
  if (testTotal) q.andWhereRaw(`${counterSql('fundraisers.id', 'raised_cents')} >= goal_amount_cents`);
  return q.update({ goal_reached_at: trx.fn.now() });
}

const GOAL_AWAITS_SQL = `select 1 from fundraisers f where f.id = ? and f.goal_reached_at is null and f.goal_amount_cents > 0
        and ${counterSql('f.id', 'raised_cents')} >= f.goal_amount_cents`;

/** After commit: whether the committed total has reached a goal nobody stamped (one read, no lock; see adjustCounters). */
export async function goalAwaitsStamp(db: Knex, fundraiserId: string): Promise<boolean> {
  return (await queryRows(db, GOAL_AWAITS_SQL, [fundraiserId])).length > 0;
}

/** Stamps a goal that gifts in flight together reached without either seeing it; answers the holder when this call stamped it. */
export async function goalReachedSince(trx: Knex.Transaction, fundraiserId: string): Promise<{ owner_user_id: string; org_id: string | null } | null> {
  if ((await stampGoal(trx, fundraiserId, true)) === 0) return null;
  const f = await trx('fundraisers').where({ id: fundraiserId }).first('owner_user_id', 'org_id');
  return f ? { owner_user_id: f.owner_user_id, org_id: f.org_id ?? null } : null;
}

/**
 * Locks the campaign row for a change that must see every other change of the campaign (a monthly
 * gift's recount). NO KEY UPDATE: the foreign-key checks of settlements in flight (KEY SHARE) go on.
 */
export async function lockForCounters(trx: Knex.Transaction, fundraiserId: string): Promise<void> {
  await trx.raw('select 1 from fundraisers where id = ? for no key update', [fundraiserId]);
}

/** Sets the campaign's count of donors with a live monthly gift (the donations module counts them, in the change's transaction). */
export async function setRecurringDonorCount(trx: Knex.Transaction, fundraiserId: string, n: number): Promise<void> {
  await trx('fundraisers').where({ id: fundraiserId }).whereNot({ recurring_donor_count: n }).update({ recurring_donor_count: n });
}

/**
 * The ranking copy: the fundraisers columns raised_cents, tips_cents, donation_count and donor_count
 * set to their shards' sums where they differ. Only orderings read it (the "most raised" sort and
 * its index); the worker runs this every few seconds (fundraisers.module.ts).
 */
export async function refreshRankingCopy(db: Knex): Promise<number> {
  const { rowCount } = await db.raw(`
    update fundraisers f set raised_cents = s.raised, tips_cents = s.tips, donation_count = s.donations, donor_count = s.donors
      from (select fundraiser_id, sum(raised_cents) as raised, sum(tips_cents) as tips,
                   sum(donation_count)::int as donations, sum(donor_count)::int as donors
              from fundraiser_counter_shards group by 1) s
     where s.fundraiser_id = f.id
       and (f.raised_cents, f.tips_cents, f.donation_count, f.donor_count) is distinct from (s.raised, s.tips, s.donations, s.donors)`);
  return rowCount ?? 0;
}
