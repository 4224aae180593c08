import type { Knex } from 'knex';

// Gifts to campaigns. A row is created pending when the processor object is created and moves
// pending -> paid | failed, paid -> refunded, only through processor webhook events.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('donations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id');
    t.uuid('donor_user_id').references('users.id');
    t.text('donor_email');
    t.text('donor_name');
    t.boolean('anonymous').notNullable().defaultTo(false);
    t.text('message');
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('tip_cents').notNullable().defaultTo(0);
    t.text('currency').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.text('method').notNullable(); // payment_intent | checkout
    t.text('processor_payment_intent_id');
    t.text('processor_checkout_session_id');
    t.text('processor_charge_id');
    t.bigInteger('refunded_cents').notNullable().defaultTo(0);
    t.bigInteger('processor_fee_cents').notNullable().defaultTo(0);
    t.bigInteger('platform_fee_cents').notNullable().defaultTo(0);
    t.text('dispute_status'); // null | open | won | lost
    // The unguessable capability for the public receipt read.
    t.text('receipt_id').notNullable();
    t.text('referral_code');
    t.text('success_url');
    t.text('cancel_url');
    t.timestamp('paid_at', { useTz: true });
    t.timestamp('failed_at', { useTz: true });
    t.timestamp('refunded_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table donations add constraint donations_status_chk
    check (status in ('pending','paid','failed','refunded'))`);
  await knex.raw(`alter table donations add constraint donations_amounts_chk
    check (amount_cents > 0 and tip_cents >= 0 and refunded_cents >= 0 and refunded_cents <= amount_cents + tip_cents)`);
  await knex.raw('create unique index donations_receipt_idx on donations (receipt_id)');
  await knex.raw('create unique index donations_pi_idx on donations (processor_payment_intent_id) where processor_payment_intent_id is not null');
  await knex.raw('create unique index donations_cs_idx on donations (processor_checkout_session_id) where processor_checkout_session_id is not null');
  await knex.raw('create index donations_fundraiser_paid_idx on donations (fundraiser_id, paid_at desc) where status = \'paid\'');
  await knex.raw('create index donations_donor_idx on donations (donor_user_id, created_at desc) where donor_user_id is not null');
  await knex.raw('create index donations_recent_idx on donations (paid_at desc) where status = \'paid\'');

  // Distinct donors per campaign: donor_count moves only when a donor's first paid gift lands
  // or their last one is refunded. donor_key is the user id, the lower-cased email, or the gift id.
  await knex.schema.createTable('fundraiser_donors', (t) => {
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id');
    t.text('donor_key').notNullable();
    t.integer('paid_count').notNullable().defaultTo(0);
    t.primary(['fundraiser_id', 'donor_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fundraiser_donors');
  await knex.schema.dropTable('donations');
}
