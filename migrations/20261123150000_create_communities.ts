import type { Knex } from 'knex';

// Paid communities: the community, its members, paid join requests (with or without a leader's
// approval), each processor payment into the community fund, the fund's one-time withdrawal
// codes and its withdrawals to the owner's connected account. Money itself lives in the ledger
// (account liability:community:<id>); these rows say why each group was posted.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('communities', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('slug').notNullable().unique();
    t.text('name').notNullable();
    t.text('description');
    t.boolean('is_private').notNullable().defaultTo(false);
    t.boolean('requires_approval').notNullable().defaultTo(false);
    t.integer('price_cents').notNullable();
    t.text('currency').notNullable().defaultTo('usd');
    t.text('interval').notNullable();
    t.uuid('owner_user_id').notNullable().references('users.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table communities add constraint communities_interval_chk check (interval in ('month','year'))`);
  await knex.raw('alter table communities add constraint communities_price_chk check (price_cents between 100 and 1000000)');
  await knex.raw('create index communities_owner_idx on communities (owner_user_id)');

  await knex.schema.createTable('community_joins', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('community_id').notNullable().references('communities.id');
    t.uuid('user_id').notNullable().references('users.id');
    t.text('interval').notNullable();
    t.integer('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.boolean('needs_approval').notNullable();
    t.text('status').notNullable();
    t.text('processor_customer_id');
    t.text('processor_setup_intent_id');
    t.text('processor_payment_method_id');
    t.text('processor_subscription_id');
    t.uuid('decided_by');
    t.timestamp('decided_at', { useTz: true });
    t.timestamp('activated_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table community_joins add constraint community_joins_status_chk check (status in
    ('requires_payment_method','pending_approval','approved','pending_payment','active','declined','payment_failed','canceled'))`);
  // One open request per person and community: a second join answers the open one.
  await knex.raw(`create unique index community_joins_open_idx on community_joins (community_id, user_id)
    where status in ('requires_payment_method','pending_approval','approved','pending_payment')`);
  await knex.raw('create index community_joins_queue_idx on community_joins (community_id, status, created_at)');
  await knex.raw('create index community_joins_subscription_idx on community_joins (processor_subscription_id) where processor_subscription_id is not null');

  await knex.schema.createTable('community_members', (t) => {
    t.uuid('community_id').notNullable().references('communities.id');
    t.uuid('user_id').notNullable().references('users.id');
    t.text('role').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.uuid('join_id').references('community_joins.id');
    t.timestamp('joined_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['community_id', 'user_id']);
  });
  await knex.raw(`alter table community_members add constraint community_members_role_chk check (role in ('owner','leader','member'))`);
  await knex.raw(`alter table community_members add constraint community_members_status_chk check (status in ('active','canceled'))`);

  // Each processor payment once: the invoice id is the processor's reference of one period's charge.
  await knex.schema.createTable('community_payments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('community_id').notNullable().references('communities.id');
    t.uuid('join_id').notNullable().references('community_joins.id');
    t.text('processor_invoice_id').notNullable().unique();
    t.text('processor_payment_intent_id');
    t.integer('amount_cents').notNullable();
    t.integer('fee_cents').notNullable().defaultTo(0);
    t.text('currency').notNullable();
    t.uuid('ledger_group_id').notNullable();
    t.text('source_event_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index community_payments_community_idx on community_payments (community_id)');

  await knex.schema.createTable('community_withdrawal_codes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('community_id').notNullable().references('communities.id');
    t.uuid('user_id').notNullable().references('users.id');
    // Only a hash: the code itself exists in the mail alone.
    t.text('code_hash').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    // A newer code replaces this one.
    t.timestamp('superseded_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index community_withdrawal_codes_owner_idx on community_withdrawal_codes (community_id, user_id, created_at desc)');

  await knex.schema.createTable('community_withdrawals', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('community_id').notNullable().references('communities.id');
    t.uuid('user_id').notNullable().references('users.id');
    t.integer('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.text('processor_account_id').notNullable();
    t.text('processor_transfer_id').notNullable().unique();
    t.uuid('ledger_group_id').notNullable();
    t.uuid('code_id').notNullable().unique().references('community_withdrawal_codes.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table community_withdrawals add constraint community_withdrawals_amount_chk check (amount_cents > 0)');
  await knex.raw('create index community_withdrawals_community_idx on community_withdrawals (community_id, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('community_withdrawals');
  await knex.schema.dropTable('community_withdrawal_codes');
  await knex.schema.dropTable('community_payments');
  await knex.schema.dropTable('community_members');
  await knex.schema.dropTable('community_joins');
  await knex.schema.dropTable('communities');
}
