import type { Knex } from 'knex';

// Discovery and community reads: referral clicks and the paid gifts they
// drove, campaign presence ("viewing now"), ambassador applications, and the indexes that keep
// /search and /home/activity index scans at 100k users, 100k campaigns and 1M gifts.
export async function up(knex: Knex): Promise<void> {
  // One click on a referral link. `ref` is a profile slug (then referrer_user_id is set) or an
  // opaque share code. caller_hash is a one-way hash of who clicked (user, visitor cookie or IP):
  // it only de-duplicates repeated clicks, it never names anyone.
  await knex.schema.createTable('referral_clicks', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.text('ref').notNullable();
    t.uuid('referrer_user_id').references('users.id').onDelete('SET NULL');
    t.text('channel');
    t.boolean('via_endorser').notNullable().defaultTo(false);
    t.uuid('clicker_user_id').references('users.id').onDelete('SET NULL');
    t.text('caller_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index referral_clicks_fundraiser_idx on referral_clicks (fundraiser_id, created_at desc)');
  await knex.raw('create index referral_clicks_recent_idx on referral_clicks (created_at desc)');
  await knex.raw('create index referral_clicks_dedupe_idx on referral_clicks (caller_hash, fundraiser_id, ref, created_at desc)');
  await knex.raw(
    'create index referral_clicks_clicker_idx on referral_clicks (clicker_user_id, fundraiser_id, created_at desc) where clicker_user_id is not null',
  );

  // A paid gift attributed to the last referral click before it (30-day window). One row per gift.
  await knex.schema.createTable('referral_attributions', (t) => {
    t.uuid('donation_id').primary().references('donations.id').onDelete('CASCADE');
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.bigInteger('click_id').references('referral_clicks.id').onDelete('SET NULL');
    t.uuid('referrer_user_id').references('users.id').onDelete('SET NULL');
    t.text('channel');
    t.boolean('via_endorser').notNullable().defaultTo(false);
    // The donor is the referrer: shown nowhere as driven money or share impact.
    t.boolean('self_referred').notNullable().defaultTo(false);
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('refunded_cents').notNullable().defaultTo(0);
    t.timestamp('paid_at', { useTz: true }).notNullable();
  });
  await knex.raw('create index referral_attributions_fundraiser_idx on referral_attributions (fundraiser_id)');
  await knex.raw(
    'create index referral_attributions_referrer_idx on referral_attributions (referrer_user_id, paid_at) where referrer_user_id is not null and not self_referred',
  );
  await knex.raw('alter table referral_attributions add constraint referral_attributions_amounts_chk check (amount_cents > 0 and refunded_cents between 0 and amount_cents)');

  // Who has a campaign page open: one row per campaign and visitor (a one-way hash, never the id).
  await knex.schema.createTable('presence_pings', (t) => {
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.text('visitor_hash').notNullable();
    t.timestamp('seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['fundraiser_id', 'visitor_hash']);
  });
  await knex.raw('create index presence_pings_seen_idx on presence_pings (seen_at desc)');

  await knex.schema.createTable('ambassador_applications', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('email').notNullable();
    t.text('message').notNullable();
    t.specificType('links', 'text[]').notNullable().defaultTo('{}');
    t.uuid('user_id').references('users.id').onDelete('SET NULL');
    t.text('status').notNullable().defaultTo('received');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index ambassador_applications_created_idx on ambassador_applications (created_at desc)');

  // /search: people by name or profile slug (only listable profiles are indexed), guest donors by
  // the name on their non-anonymous gifts. Substring matches (ILIKE) use these trigram indexes.
  await knex.raw('create extension if not exists pg_trgm');
  await knex.raw(
    `create index users_search_name_trgm_idx on users using gin (lower(name) gin_trgm_ops)
     where status = 'active' and not profile_private`,
  );
  await knex.raw(
    `create index users_search_slug_trgm_idx on users using gin (profile_slug gin_trgm_ops)
     where status = 'active' and not profile_private`,
  );
  await knex.raw(
    `create index donations_guest_name_trgm_idx on donations using gin (lower(donor_name) gin_trgm_ops)
     where status = 'paid' and not anonymous and donor_user_id is null and donor_name is not null`,
  );
  // /home/activity: campaigns submitted for review, and visits through shared links, newest first.
  await knex.raw('create index fundraisers_submitted_idx on fundraisers (submitted_at desc) where submitted_at is not null');
  await knex.raw('create index fundraiser_share_visits_recent_idx on fundraiser_share_visits (created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists fundraiser_share_visits_recent_idx');
  await knex.raw('drop index if exists fundraisers_submitted_idx');
  await knex.raw('drop index if exists donations_guest_name_trgm_idx');
  await knex.raw('drop index if exists users_search_slug_trgm_idx');
  await knex.raw('drop index if exists users_search_name_trgm_idx');
  await knex.schema.dropTable('ambassador_applications');
  await knex.schema.dropTable('presence_pings');
  await knex.schema.dropTable('referral_attributions');
  await knex.schema.dropTable('referral_clicks');
}
