import type { Knex } from 'knex';

// What a refund or dispute of a transferred gift took back from the holder's connected account
// (a processor transfer reversal), so the platform does not pay the refund out of its own balance.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('transfer_reversals', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('transfer_id').notNullable().references('transfers.id');
    t.text('processor_reversal_id').notNullable().unique();
    t.text('processor_account_id').notNullable().references('processor_accounts.id');
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id');
    t.uuid('donation_id').references('donations.id');
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.uuid('ledger_group_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table transfer_reversals add constraint transfer_reversals_amount_chk check (amount_cents > 0)');
  await knex.raw('create index transfer_reversals_transfer_idx on transfer_reversals (transfer_id)');
  await knex.raw('create index transfer_reversals_account_idx on transfer_reversals (processor_account_id, fundraiser_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('transfer_reversals');
}
