import type { Knex } from 'knex';

// Connected accounts of campaign holders, the transfers of settled gifts to them, the payouts
// of those accounts to the holders' banks, and each payout's split across the holder's campaigns.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('processor_accounts', (t) => {
    // The processor's account id (acct_...): events name accounts by it.
    t.text('id').primary();
    t.text('owner_type').notNullable();
    t.uuid('owner_id').notNullable();
    t.boolean('charges_enabled').notNullable().defaultTo(false);
    t.boolean('payouts_enabled').notNullable().defaultTo(false);
    t.boolean('details_submitted').notNullable().defaultTo(false);
    t.text('status').notNullable().defaultTo('onboarding');
    // `created` of the newest account.updated applied, so an older event delivered late changes nothing.
    t.timestamp('synced_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table processor_accounts add constraint processor_accounts_owner_type_chk check (owner_type in ('user','organization'))`);
  await knex.raw(`alter table processor_accounts add constraint processor_accounts_status_chk check (status in ('onboarding','active','restricted'))`);
  // One account per holder: onboarding twice resumes the same account.
  await knex.raw('create unique index processor_accounts_owner_idx on processor_accounts (owner_type, owner_id)');

  await knex.schema.createTable('transfers', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('processor_transfer_id').notNullable().unique();
    t.text('processor_account_id').notNullable().references('processor_accounts.id');
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id');
    // One transfer per gift: the gift's id is the processor idempotency key too.
    t.uuid('donation_id').unique().references('donations.id');
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.uuid('payout_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table transfers add constraint transfers_amount_chk check (amount_cents > 0)');
  await knex.raw('create index transfers_account_idx on transfers (processor_account_id, created_at)');
  await knex.raw('create index transfers_fundraiser_idx on transfers (fundraiser_id)');

  await knex.schema.createTable('payouts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('processor_payout_id').notNullable().unique();
    t.text('processor_account_id').notNullable().references('processor_accounts.id');
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.text('status').notNullable();
    t.date('arrival_date');
    // The ledger groups of the payout and of its reversal (paid, then failed), once each.
    t.uuid('paid_group_id');
    t.uuid('reversal_group_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table payouts add constraint payouts_status_chk check (status in ('pending','in_transit','paid','failed'))`);
  await knex.raw('alter table payouts add constraint payouts_amount_chk check (amount_cents >= 0)');
  await knex.raw('create index payouts_account_idx on payouts (processor_account_id, created_at desc)');
  await knex.raw('alter table transfers add constraint transfers_payout_fk foreign key (payout_id) references payouts (id)');

  await knex.schema.createTable('withdrawals', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('payout_id').notNullable().references('payouts.id');
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id');
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.text('status').notNullable();
    t.date('arrival_date');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['payout_id', 'fundraiser_id']);
  });
  await knex.raw(`alter table withdrawals add constraint withdrawals_status_chk check (status in ('pending','in_transit','paid','failed'))`);
  await knex.raw('create index withdrawals_fundraiser_idx on withdrawals (fundraiser_id, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('withdrawals');
  await knex.raw('alter table transfers drop constraint transfers_payout_fk');
  await knex.schema.dropTable('payouts');
  await knex.schema.dropTable('transfers');
  await knex.schema.dropTable('processor_accounts');
}
