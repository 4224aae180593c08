import type { Knex } from 'knex';

/**
 * When a campaign's first gift was paid: stamped with the money counters (fundraisers'
 * adjustCounters) and never cleared, so "has collected money" (delete and back-to-draft refused,
 * even after a refund) is the campaign's own fact and fundraisers need not ask donations.
 * Backfilled from the earliest paid gift of each campaign.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table fundraisers add column first_paid_at timestamptz');
  await knex.raw(`
    update fundraisers f set first_paid_at = d.first_paid_at
      from (select fundraiser_id, min(paid_at) as first_paid_at from donations where paid_at is not null group by fundraiser_id) d
     where d.fundraiser_id = f.id`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table fundraisers drop column first_paid_at');
}
