import type { Knex } from 'knex';

// Follows, the campaign-updates feed's read marks, blocks, reports, email preferences, and
// headers (List-Unsubscribe) on outgoing mail.
export async function up(knex: Knex): Promise<void> {
  // A new row per follow: unfollowing ends the row, following again starts a new one, so the
  // feed's "updates before the relationship read as read" moves with the latest start.
  await knex.schema.createTable('follows', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('follower_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('following_type').notNullable();
    t.uuid('following_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
  });
  await knex.raw(`alter table follows add constraint follows_type_chk check (following_type in ('user','organization'))`);
  await knex.raw(
    'create unique index follows_active_idx on follows (follower_id, following_type, following_id) where deleted_at is null',
  );
  // Who follows a holder (notifications on a new update), and the caller's list newest first.
  await knex.raw('create index follows_target_idx on follows (following_type, following_id) where deleted_at is null');
  await knex.raw('create index follows_list_idx on follows (follower_id, created_at desc, id desc) where deleted_at is null');

  // Campaigns held by an organization, found from an organization follow.
  await knex.raw('create index if not exists fundraisers_org_feed_idx on fundraisers (org_id) where org_id is not null and deleted_at is null');

  await knex.schema.createTable('campaign_update_reads', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('update_id').notNullable().references('project_updates.id').onDelete('CASCADE');
    t.timestamp('read_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['user_id', 'update_id']);
  });

  await knex.schema.createTable('user_blocks', (t) => {
    t.uuid('blocker_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('blocked_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['blocker_id', 'blocked_id']);
  });
  await knex.raw('alter table user_blocks add constraint user_blocks_self_chk check (blocker_id <> blocked_id)');
  await knex.raw('create index user_blocks_list_idx on user_blocks (blocker_id, created_at desc)');

  await knex.schema.createTable('reports', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('reporter_user_id').references('users.id').onDelete('SET NULL');
    t.text('target_type').notNullable();
    t.uuid('target_id').notNullable();
    t.text('reason').notNullable();
    t.text('details');
    t.text('status').notNullable().defaultTo('received');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table reports add constraint reports_target_chk check (target_type in ('fundraiser','comment','update','user'))`);
  await knex.raw('create index reports_created_idx on reports (created_at desc, id desc)');

  // Email toggles per notification type; a type absent from `email` is on.
  await knex.schema.createTable('notification_preferences', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.jsonb('email').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.alterTable('mail_outbox', (t) => {
    t.jsonb('headers');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mail_outbox', (t) => t.dropColumn('headers'));
  await knex.schema.dropTable('notification_preferences');
  await knex.schema.dropTable('reports');
  await knex.schema.dropTable('user_blocks');
  await knex.schema.dropTable('campaign_update_reads');
  await knex.raw('drop index if exists fundraisers_org_feed_idx');
  await knex.schema.dropTable('follows');
}
