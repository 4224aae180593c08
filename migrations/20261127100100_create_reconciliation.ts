import type { Knex } from 'knex';

/**
 * Money that reconciles (docs/decisions/0016-recovery-and-reconciliation.md):
 * - ledger_entries.processor_ref / processor_move: the processor object a group moved money
 *   through (a PaymentIntent for charges, refunds and disputes; a transfer, reversal or payout
 *   id) and what kind of movement it was, so reconciliation matches groups to balance
 *   transactions by id. Null on groups that move no processor money, and on groups posted
 *   before this column existed.
 * - processor_balance_transactions: every balance transaction a reconciliation run listed,
 *   kept by id so a movement the ledger recorded on the next day still finds its match.
 * - reconciliation_runs: each day's last run (status, counts, differences).
 * - payment_sync_state: the event catch-up's cursor (the newest event time seen).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table ledger_entries add column processor_ref text, add column processor_move text');
  await knex.raw('create index ledger_entries_processor_ref_idx on ledger_entries (processor_ref, processor_move) where processor_ref is not null');
  await knex.raw('create index ledger_entries_created_at_idx on ledger_entries (created_at)');
  await knex.raw(`
    create table processor_balance_transactions (
      id text primary key,
      type text not null,
      move text not null,
      ref text,
      amount_cents bigint not null,
      fee_cents bigint not null default 0,
      net_cents bigint not null,
      currency text not null,
      created_at timestamptz not null
    )`);
  await knex.raw('create index processor_balance_transactions_ref_idx on processor_balance_transactions (ref, move)');
  await knex.raw('create index processor_balance_transactions_created_idx on processor_balance_transactions (created_at)');
  await knex.raw(`
    create table reconciliation_runs (
      day date primary key,
      status text not null check (status in ('clean', 'differences', 'failed')),
      checked_processor integer not null default 0,
      checked_ledger integer not null default 0,
      differences jsonb not null default '[]',
      error text,
      ran_at timestamptz not null default now()
    )`);
  await knex.raw(`create table payment_sync_state (key text primary key, value timestamptz not null, updated_at timestamptz not null default now())`);
  // The sandbox lists its events and balance transactions by time, like Stripe's list endpoints.
  await knex.raw(`create index sandbox_objects_listed_idx on sandbox_objects (kind, created_at, id) where kind in ('event', 'balance_transaction')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists sandbox_objects_listed_idx');
  await knex.raw('drop table if exists payment_sync_state');
  await knex.raw('drop table if exists reconciliation_runs');
  await knex.raw('drop table if exists processor_balance_transactions');
  await knex.raw('drop index if exists ledger_entries_created_at_idx');
  await knex.raw('drop index if exists ledger_entries_processor_ref_idx');
  await knex.raw('alter table ledger_entries drop column processor_move, drop column processor_ref');
}
