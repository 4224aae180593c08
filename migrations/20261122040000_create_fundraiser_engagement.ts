import type { Knex } from 'knex';

// Campaign lifecycle and engagement: review results, staff review columns, comments, likes,
// share events and visits via shared links. Tags stay the text[] column on fundraisers.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fundraisers', (t) => {
    // When the campaign last entered `pending` (review queue order: oldest first).
    t.timestamp('submitted_at', { useTz: true });
    t.timestamp('reviewed_at', { useTz: true });
    t.uuid('reviewed_by');
    // Reasons given by staff on reject; shown to the owner in trustStatus.rejectionReasons.
    t.specificType('review_rejection_reasons', 'text[]');
  });
  await knex.raw(
    `create index fundraisers_review_queue_idx on fundraisers (coalesce(submitted_at, created_at), id)
     where status = 'pending' and deleted_at is null`,
  );
  // Duplicate detection compares normalised titles with pg_trgm's similarity (% operator).
  await knex.raw('create index fundraisers_title_lower_trgm_idx on fundraisers using gin (lower(title) gin_trgm_ops)');
  await knex.raw('create index fundraisers_tags_idx on fundraisers using gin (tags)');

  // Latest content-review result per fundraiser (the gate's AI/rules decision).
  await knex.schema.createTable('fundraiser_reviews', (t) => {
    t.uuid('fundraiser_id').primary().references('fundraisers.id').onDelete('CASCADE');
    t.text('reviewer').notNullable(); // rules | llm
    t.text('ai_decision').notNullable(); // approve | flag | block
    t.integer('trust_score').notNullable();
    t.boolean('payout_hold').notNullable().defaultTo(false);
    t.specificType('rejection_reasons', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('user_messages').notNullable().defaultTo('[]');
    t.timestamp('reviewed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table fundraiser_reviews add constraint fundraiser_reviews_decision_chk
    check (ai_decision in ('approve','flag','block') and trust_score between 0 and 100)`);

  await knex.schema.createTable('comments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id');
    t.uuid('parent_id').references('comments.id').onDelete('CASCADE');
    t.text('body').notNullable();
    t.text('gif_id');
    // Set when the comment is a donor's note tied to a gift (money issue); deletion retracts it.
    t.uuid('donation_id');
    t.integer('like_count').notNullable().defaultTo(0);
    t.timestamp('deleted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'create index comments_fundraiser_top_idx on comments (fundraiser_id, created_at desc) where parent_id is null and deleted_at is null',
  );
  await knex.raw('create index comments_parent_idx on comments (parent_id, created_at) where deleted_at is null');

  await knex.schema.createTable('comment_likes', (t) => {
    t.uuid('comment_id').notNullable().references('comments.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['comment_id', 'user_id']);
  });

  await knex.schema.createTable('fundraiser_shares', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.uuid('user_id'); // null: anonymous sharer
    t.text('channel').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index fundraiser_shares_fundraiser_idx on fundraiser_shares (fundraiser_id, channel)');

  // A visit that arrived through a shared link (channel null: attribution unknown).
  await knex.schema.createTable('fundraiser_share_visits', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.text('channel');
    t.uuid('sharer_user_id');
    t.boolean('via_endorser').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index fundraiser_share_visits_fundraiser_idx on fundraiser_share_visits (fundraiser_id, channel)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fundraiser_share_visits');
  await knex.schema.dropTable('fundraiser_shares');
  await knex.schema.dropTable('comment_likes');
  await knex.schema.dropTable('comments');
  await knex.schema.dropTable('fundraiser_reviews');
  await knex.raw('drop index if exists fundraisers_tags_idx');
  await knex.raw('drop index if exists fundraisers_title_lower_trgm_idx');
  await knex.raw('drop index if exists fundraisers_review_queue_idx');
  await knex.schema.alterTable('fundraisers', (t) => {
    t.dropColumn('submitted_at');
    t.dropColumn('reviewed_at');
    t.dropColumn('reviewed_by');
    t.dropColumn('review_rejection_reasons');
  });
}
