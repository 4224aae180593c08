import type { Knex } from 'knex';

// The processor's dispute fees on a gift's charge as the ledger recorded them (net of any given
// back when a dispute is won), and how many of the dispute's balance transactions that covers:
// the processor's list only grows, so an older report arriving late is recognised and ignored.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table donations add column dispute_fee_cents integer not null default 0, add column dispute_fee_txns integer not null default 0');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table donations drop column dispute_fee_cents, drop column dispute_fee_txns');
}
