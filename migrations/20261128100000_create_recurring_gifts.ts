import type { Knex } from 'knex';

// Monthly gifts to campaigns (docs/decisions/0020-monthly-gifts-are-gifts.md). A recurring gift is the
// processor subscription's row; each of its payments is an ordinary gift (donations row with
// recurring_gift_id), settled through the ledger like any other. `status` is the donor-facing
// state; `sync_version` / `synced_version` carry a change (amount, tip, pause, cancel) made here
// to the processor (claim, call, confirm: the call happens after commit, a job repeats it).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('recurring_gifts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id');
    t.uuid('donor_user_id').references('users.id');
    t.text('donor_email');
    t.text('donor_name');
    t.boolean('anonymous').notNullable().defaultTo(false);
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('tip_cents').notNullable().defaultTo(0);
    t.text('currency').notNullable();
    t.text('interval').notNullable().defaultTo('month');
    t.text('status').notNullable().defaultTo('incomplete');
    t.text('locale').notNullable().defaultTo('en');
    t.text('processor_checkout_session_id');
    t.text('processor_subscription_id');
    t.text('processor_customer_id');
    // The pending gift the Checkout Session was opened for: the first invoice settles it.
    t.uuid('first_donation_id');
    t.timestamp('next_payment_at', { useTz: true });
    t.timestamp('started_at', { useTz: true });
    t.timestamp('canceled_at', { useTz: true });
    t.text('cancel_reason');
    t.text('canceled_by');
    t.text('last_failed_invoice_id');
    t.timestamp('subscription_event_at', { useTz: true });
    t.integer('sync_version').notNullable().defaultTo(0);
    t.integer('synced_version').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table recurring_gifts add constraint recurring_gifts_status_chk
    check (status in ('incomplete','active','paused','past_due','canceled'))`);
  await knex.raw(`alter table recurring_gifts add constraint recurring_gifts_amounts_chk check (amount_cents > 0 and tip_cents >= 0)`);
  await knex.raw(`alter table recurring_gifts add constraint recurring_gifts_canceled_by_chk
    check (canceled_by is null or canceled_by in ('donor','campaign','processor','erasure','checkout'))`);
  await knex.raw('create unique index recurring_gifts_sub_idx on recurring_gifts (processor_subscription_id) where processor_subscription_id is not null');
  await knex.raw('create index recurring_gifts_donor_idx on recurring_gifts (donor_user_id, created_at desc) where donor_user_id is not null');
  await knex.raw('create index recurring_gifts_guest_email_idx on recurring_gifts (lower(donor_email)) where donor_user_id is null');
  await knex.raw('create index recurring_gifts_fundraiser_idx on recurring_gifts (fundraiser_id, status)');
  await knex.raw('create index recurring_gifts_unsynced_idx on recurring_gifts (id) where sync_version > synced_version');

  await knex.schema.alterTable('donations', (t) => {
    t.uuid('recurring_gift_id').references('recurring_gifts.id');
    // The invoice a monthly gift's payment came from: each invoice settles one gift, once.
    t.text('processor_invoice_id');
  });
  await knex.raw('create unique index donations_invoice_idx on donations (processor_invoice_id) where processor_invoice_id is not null');
  await knex.raw('create index donations_recurring_idx on donations (recurring_gift_id, created_at) where recurring_gift_id is not null');

  await knex.schema.alterTable('fundraisers', (t) => {
    // Distinct donors with a live (active, paused or past_due) monthly gift; recomputed with each change.
    t.integer('recurring_donor_count').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fundraisers', (t) => t.dropColumn('recurring_donor_count'));
  await knex.raw('drop index if exists donations_recurring_idx');
  await knex.raw('drop index if exists donations_invoice_idx');
  await knex.schema.alterTable('donations', (t) => {
    t.dropColumn('processor_invoice_id');
    t.dropColumn('recurring_gift_id');
  });
  await knex.schema.dropTable('recurring_gifts');
}
