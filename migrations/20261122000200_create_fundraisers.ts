import type { Knex } from 'knex';

// Campaign core shared by the fundraiser modules. Money columns are integer cents; the
// raised/donor counters are caches the money ledger maintains (provable from the ledger).
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.schema.createTable('categories', (t) => {
    t.increments('id').primary();
    t.text('slug').notNullable().unique();
    t.jsonb('names').notNullable(); // { en, ru, uk, es }
    t.integer('sort_order').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('fundraisers', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('owner_user_id').notNullable().references('users.id');
    t.uuid('org_id');
    t.text('title').notNullable();
    t.text('slug').notNullable();
    t.text('summary');
    t.text('story_html');
    t.bigInteger('goal_amount_cents').notNullable();
    t.text('currency').notNullable().defaultTo('USD');
    t.text('status').notNullable().defaultTo('draft');
    t.text('visibility').notNullable().defaultTo('public');
    t.text('type').notNullable().defaultTo('personal');
    t.boolean('is_project').notNullable().defaultTo(false);
    t.integer('category_id').references('categories.id');
    t.specificType('tags', 'text[]');
    t.text('cover_image');
    t.double('cover_image_focal_x');
    t.double('cover_image_focal_y');
    t.specificType('images', 'text[]');
    t.text('video_url');
    t.text('location');
    // City-level point resolved from `location` through the gazetteer; null when unknown.
    t.double('location_lat');
    t.double('location_lng');
    t.text('location_label');
    t.text('beneficiary_name');
    t.text('beneficiary_contact');
    t.text('source_language').notNullable().defaultTo('en');
    t.date('end_date');
    t.timestamp('approved_at', { useTz: true });
    t.timestamp('goal_reached_at', { useTz: true });
    t.text('cover_tint');
    t.bigInteger('raised_cents').notNullable().defaultTo(0);
    t.integer('donor_count').notNullable().defaultTo(0);
    t.integer('donation_count').notNullable().defaultTo(0);
    t.integer('shares_count').notNullable().defaultTo(0);
    t.timestamp('deleted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index fundraisers_slug_idx on fundraisers (slug)');
  await knex.raw('create index fundraisers_owner_idx on fundraisers (owner_user_id) where deleted_at is null');
  await knex.raw(`alter table fundraisers add constraint fundraisers_status_chk
    check (status in ('draft','pending','active','paused','ended','rejected'))`);
  await knex.raw(`alter table fundraisers add constraint fundraisers_visibility_chk
    check (visibility in ('public','unlisted','private'))`);
  await knex.raw(`alter table fundraisers add constraint fundraisers_type_chk
    check (type in ('personal','for_others','charity'))`);
  await knex.raw(`alter table fundraisers add constraint fundraisers_money_chk
    check (goal_amount_cents >= 0 and raised_cents >= 0)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fundraisers');
  await knex.schema.dropTable('categories');
}
