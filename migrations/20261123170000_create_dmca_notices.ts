import type { Knex } from 'knex';

// DMCA notices received through POST /dmca/notice, and each staff take-down of campaign media
// made under one (what was removed from which campaign, by whom, when).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dmca_notices', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('complainant_name').notNullable();
    t.text('complainant_email').notNullable();
    t.text('work_description').notNullable();
    t.specificType('infringing_urls', 'text[]').notNullable();
    t.text('signature').notNullable();
    t.text('status').notNullable().defaultTo('received');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('actioned_at', { useTz: true });
  });
  await knex.raw(`alter table dmca_notices add constraint dmca_notices_status_chk check (status in ('received','actioned'))`);
  await knex.raw('create index dmca_notices_created_idx on dmca_notices (created_at desc, id desc)');

  await knex.schema.createTable('dmca_takedowns', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('notice_id').notNullable().references('dmca_notices.id').onDelete('CASCADE');
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.uuid('staff_user_id').references('users.id').onDelete('SET NULL');
    // The URL taken off the campaign; media_id when it was one of the campaign's uploads (row now deleted).
    t.text('url').notNullable();
    t.uuid('media_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index dmca_takedowns_notice_idx on dmca_takedowns (notice_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dmca_takedowns');
  await knex.schema.dropTable('dmca_notices');
}
