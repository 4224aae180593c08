import type { Knex } from 'knex';

// Money-moving processor calls (transfers, transfer reversals) as claim, call, confirm: the row is
// claimed in a short transaction with its idempotency key and exact parameters, the processor is
// called outside any transaction, and a second transaction confirms it (the transfers /
// transfer_reversals / connected_credits row and the ledger group). A row still `pending` is work
// the processor may or may not have done: re-calling it with the same key is always safe.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('processor_calls', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('kind').notNullable();
    t.text('idempotency_key').notNullable().unique();
    t.text('status').notNullable().defaultTo('pending');
    t.text('processor_account_id').notNullable().references('processor_accounts.id');
    t.uuid('donation_id').references('donations.id');
    t.uuid('fundraiser_id').references('fundraisers.id');
    t.uuid('transfer_id').references('transfers.id');
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.text('processor_object_id');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table processor_calls add constraint processor_calls_kind_chk check (kind in ('transfer','transfer_reversal','user_transfer'))`);
  await knex.raw(`alter table processor_calls add constraint processor_calls_status_chk check (status in ('pending','done'))`);
  await knex.raw('alter table processor_calls add constraint processor_calls_amount_chk check (amount_cents > 0)');
  // One transfer per gift, ever; at most one reversal of a transfer in flight.
  await knex.raw(`create unique index processor_calls_gift_transfer_uq on processor_calls (donation_id) where kind = 'transfer'`);
  await knex.raw(`create unique index processor_calls_reversal_pending_uq on processor_calls (transfer_id) where kind = 'transfer_reversal' and status = 'pending'`);
  await knex.raw(`create index processor_calls_pending_idx on processor_calls (processor_account_id, created_at) where status = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('processor_calls');
}
