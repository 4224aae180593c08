import type { Knex } from 'knex';

// Platform tips (one-time and monthly) with one row per settled payment, and in-app notifications.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tips', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').references('users.id').onDelete('SET NULL');
    t.text('email');
    t.boolean('anonymous').notNullable().defaultTo(false);
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable().defaultTo('usd');
    t.text('cadence').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    // The locale of the request that started the tip: its mails use it.
    t.text('locale').notNullable().defaultTo('en');
    t.text('processor_checkout_session_id');
    t.text('processor_payment_intent_id');
    t.text('processor_subscription_id');
    t.text('processor_customer_id');
    t.text('subscription_status');
    t.timestamp('current_period_end', { useTz: true });
    t.timestamp('canceled_at', { useTz: true });
    // Processor time of the last subscription event applied: an older event arriving late changes nothing.
    t.timestamp('subscription_event_at', { useTz: true });
    t.integer('receipt_email_count').notNullable().defaultTo(0);
    t.timestamp('paid_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table tips add constraint tips_status_chk check (status in ('pending','paid','failed','canceled'))`);
  await knex.raw(`alter table tips add constraint tips_cadence_chk check (cadence in ('one_time','recurring'))`);
  await knex.raw(`alter table tips add constraint tips_amount_chk check (amount_cents between 100 and 1000000)`);
  await knex.raw(`alter table tips add constraint tips_receipt_count_chk check (receipt_email_count between 0 and 5)`);
  await knex.raw('create unique index tips_cs_idx on tips (processor_checkout_session_id) where processor_checkout_session_id is not null');
  await knex.raw('create unique index tips_sub_idx on tips (processor_subscription_id) where processor_subscription_id is not null');
  await knex.raw('create index tips_user_idx on tips (user_id, created_at desc) where user_id is not null');

  // One row per settled payment: the first one and each monthly renewal. The unique processor
  // reference (invoice for monthly tips, checkout session for one-time ones) makes a redelivered
  // or differently-named event for the same payment settle nothing twice.
  await knex.schema.createTable('tip_payments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tip_id').notNullable().references('tips.id');
    t.text('processor_invoice_id');
    t.text('processor_checkout_session_id');
    t.text('processor_payment_intent_id');
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('fee_cents').notNullable().defaultTo(0);
    t.text('currency').notNullable();
    t.uuid('ledger_group_id').notNullable();
    t.text('source_event_id');
    t.timestamp('paid_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table tip_payments add constraint tip_payments_ref_chk check (processor_invoice_id is not null or processor_checkout_session_id is not null)');
  await knex.raw('create unique index tip_payments_invoice_idx on tip_payments (processor_invoice_id) where processor_invoice_id is not null');
  await knex.raw('create unique index tip_payments_cs_idx on tip_payments (processor_checkout_session_id) where processor_checkout_session_id is not null');
  await knex.raw('create index tip_payments_tip_idx on tip_payments (tip_id)');

  await knex.schema.createTable('notifications', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('category').notNullable();
    t.text('priority').notNullable().defaultTo('normal');
    t.text('title').notNullable();
    t.text('message').notNullable();
    t.text('icon');
    t.text('action_url');
    t.text('action_label');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.boolean('is_read').notNullable().defaultTo(false);
    t.boolean('is_archived').notNullable().defaultTo(false);
    t.timestamp('read_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Names the fact behind a notification (e.g. donation_received:<donation id>): a retried subscriber never doubles it.
    t.text('dedupe_key').notNullable();
  });
  await knex.raw(`alter table notifications add constraint notifications_priority_chk check (priority in ('low','normal','high'))`);
  await knex.raw('create unique index notifications_dedupe_idx on notifications (dedupe_key)');
  await knex.raw('create index notifications_user_idx on notifications (user_id, is_archived, created_at desc)');
  await knex.raw('create index notifications_unread_idx on notifications (user_id) where not is_read and not is_archived');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notifications');
  await knex.schema.dropTable('tip_payments');
  await knex.schema.dropTable('tips');
}
