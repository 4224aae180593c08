import type { Knex } from 'knex';

// Campaign gallery uploads, image crops (each pointing back at its original) and the outcome
// report a campaign holder publishes after the campaign (a column of the campaign it reports on).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('media_uploads', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.uuid('owner_user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('storage_key').notNullable().unique();
    t.text('content_type').notNullable();
    t.bigInteger('bytes').notNullable();
    t.integer('width');
    t.integer('height');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table media_uploads add constraint media_uploads_kind_chk check (kind in ('image','video'))`);
  await knex.raw('create index media_uploads_fundraiser_idx on media_uploads (fundraiser_id, created_at)');

  await knex.schema.createTable('image_crops', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('author_user_id').notNullable().references('users.id').onDelete('CASCADE');
    // The original's storage key; its owner is the uploader recorded in media_uploads, when there is one.
    t.text('original_key').notNullable();
    t.text('storage_key').notNullable().unique();
    t.integer('x').notNullable();
    t.integer('y').notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table image_crops add constraint image_crops_box_chk check (x >= 0 and y >= 0 and width > 0 and height > 0)');
  await knex.raw('create index image_crops_original_idx on image_crops (original_key, created_at)');

  await knex.schema.alterTable('fundraisers', (t) => {
    // { body_html, images, updated_at } or null; shown on the slug read.
    t.jsonb('outcome_report');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fundraisers', (t) => t.dropColumn('outcome_report'));
  await knex.schema.dropTable('image_crops');
  await knex.schema.dropTable('media_uploads');
}
