import type { Knex } from 'knex';

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
  raised_cents: number;
  goal_amount_cents: number;
  /** True when this change took the raised total to the goal for the first time. */
  goal_reached_now: boolean;
}

/**
 * Moves a campaign's money counters, in the transaction that posts the matching ledger group,
 * stamps goal_reached_at the first time the raised total reaches the goal, and first_paid_at the
 * first time a gift is paid (a positive donation_count; never cleared, so a refund does not undo
 * "has collected money"). The row lock taken here also serialises concurrent settlements of the
 * same campaign.
 */
export async function adjustCounters(trx: Knex.Transaction, fundraiserId: string, d: CounterDelta): Promise<CounterResult> {
  const { rows } = await trx.raw(
    `with before as (select goal_reached_at from fundraisers where id = ? for update)
     update fundraisers f set
        raised_cents = f.raised_cents + ?,
        tips_cents = f.tips_cents + ?,
        donation_count = f.donation_count + ?,
        donor_count = f.donor_count + ?,
        goal_reached_at = case when f.goal_reached_at is null and f.goal_amount_cents > 0
                                    and f.raised_cents + ? >= f.goal_amount_cents then now() else f.goal_reached_at end,
        first_paid_at = case when f.first_paid_at is null and ? > 0 then now() else f.first_paid_at end
       from before
      where f.id = ?
      returning f.owner_user_id, f.org_id, f.raised_cents, f.goal_amount_cents,
                (before.goal_reached_at is null and f.goal_reached_at is not null) as goal_reached_now`,
    [fundraiserId, d.raised_cents ?? 0, d.tips_cents ?? 0, d.donation_count ?? 0, d.donor_count ?? 0, d.raised_cents ?? 0, d.donation_count ?? 0, fundraiserId],
  );
  const r = rows[0];
  if (!r) throw new Error(`fundraiser ${fundraiserId} not found for counters`);
  return {
    owner_user_id: r.owner_user_id,
    org_id: r.org_id,
    raised_cents: Number(r.raised_cents),
    goal_amount_cents: Number(r.goal_amount_cents),
    goal_reached_now: !!r.goal_reached_now,
  };
}

/**
 * Locks the campaign row before anything else of a settlement: the fundraiser_donors upsert takes
 * a KEY SHARE lock on it (foreign key), and two settlements each holding that and then asking for
 * the counters' FOR UPDATE would deadlock. Taking the strong lock first orders them.
 */
export async function lockForCounters(trx: Knex.Transaction, fundraiserId: string): Promise<void> {
  await trx.raw('select 1 from fundraisers where id = ? for update', [fundraiserId]);
}

/** Sets the campaign's count of donors with a live monthly gift (the donations module counts them, in the change's transaction). */
export async function setRecurringDonorCount(trx: Knex.Transaction, fundraiserId: string, n: number): Promise<void> {
  await trx('fundraisers').where({ id: fundraiserId }).whereNot({ recurring_donor_count: n }).update({ recurring_donor_count: n });
}
