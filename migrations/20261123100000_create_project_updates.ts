import type { Knex } from 'knex';

// Project updates (posts on a campaign's page), their likes and per-locale translations,
// milestones with theirs, and the audit log of owner edits (spec: "Audit-logged operations").
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('project_updates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.uuid('author_user_id').notNullable().references('users.id');
    t.text('title'); // null: the update has no title
    t.text('body').notNullable();
    // Detected offline on post and on every wording change; one of the four locales.
    t.text('language').notNullable().defaultTo('en');
    t.integer('like_count').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('edited_at', { useTz: true });
    t.timestamp('deleted_at', { useTz: true }); // withdrawn (soft delete)
  });
  await knex.raw(`alter table project_updates add constraint project_updates_language_chk
    check (language in ('en','ru','uk','es') and like_count >= 0)`);
  // The campaign's public feed and the translations tab: live updates, newest first.
  await knex.raw(
    'create index project_updates_fundraiser_idx on project_updates (fundraiser_id, created_at desc, id desc) where deleted_at is null',
  );

  await knex.schema.createTable('update_likes', (t) => {
    t.uuid('update_id').notNullable().references('project_updates.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['update_id', 'user_id']);
  });

  await knex.schema.createTable('update_translations', (t) => {
    t.uuid('update_id').notNullable().references('project_updates.id').onDelete('CASCADE');
    t.text('lang').notNullable();
    t.text('title');
    t.text('body').notNullable();
    t.text('source').notNullable(); // human | machine
    // A hand-made row whose update's words changed after it was written.
    t.boolean('outdated').notNullable().defaultTo(false);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['update_id', 'lang']);
  });
  await knex.raw(`alter table update_translations add constraint update_translations_chk
    check (lang in ('en','ru','uk','es') and source in ('human','machine'))`);

  await knex.schema.createTable('milestones', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.text('description');
    t.date('due_date');
    t.bigInteger('amount_cents');
    t.text('status').notNullable().defaultTo('planned');
    t.timestamp('completed_at', { useTz: true });
    t.text('language').notNullable().defaultTo('en');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table milestones add constraint milestones_chk
    check (status in ('planned','in_progress','done') and language in ('en','ru','uk','es')
      and (amount_cents is null or amount_cents >= 0))`);
  // Read order: due date (undated last), then creation.
  await knex.raw('create index milestones_fundraiser_idx on milestones (fundraiser_id, due_date nulls last, created_at, id)');

  await knex.schema.createTable('milestone_translations', (t) => {
    t.uuid('milestone_id').notNullable().references('milestones.id').onDelete('CASCADE');
    t.text('lang').notNullable();
    t.text('title').notNullable();
    t.text('description');
    t.text('source').notNullable().defaultTo('machine');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['milestone_id', 'lang']);
  });
  await knex.raw(`alter table milestone_translations add constraint milestone_translations_chk
    check (lang in ('en','ru','uk','es') and source in ('human','machine'))`);

  await knex.schema.createTable('audit_log', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('actor_user_id').references('users.id').onDelete('SET NULL');
    t.text('action').notNullable(); // e.g. update.edited, translation.saved, translation.regenerated
    t.text('target_type').notNullable();
    t.uuid('target_id').notNullable();
    t.jsonb('details').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index audit_log_target_idx on audit_log (target_type, target_id, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_log');
  await knex.schema.dropTable('milestone_translations');
  await knex.schema.dropTable('milestones');
  await knex.schema.dropTable('update_translations');
  await knex.schema.dropTable('update_likes');
  await knex.schema.dropTable('project_updates');
}
