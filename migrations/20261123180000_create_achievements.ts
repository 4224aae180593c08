import type { Knex } from 'knex';

// Achievements earned by events (first gift, first campaign live, goal reached, 10 / 100 donors,
// first update): one row per user and kind, each with its own unguessable public card code.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('achievements', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    // The card's public code: random, so cards cannot be enumerated from user ids or kinds.
    t.text('code').notNullable().unique();
    // The campaign the achievement is about, when naming it exposes nobody.
    t.uuid('fundraiser_id').references('fundraisers.id').onDelete('SET NULL');
    // False when showing it would reveal an anonymous gift: only its earner sees it then.
    t.boolean('public').notNullable().defaultTo(true);
    t.timestamp('earned_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['user_id', 'kind']);
  });
  await knex.raw(
    `alter table achievements add constraint achievements_kind_chk
       check (kind in ('first_gift','first_campaign_live','goal_reached','donors_10','donors_100','first_update'))`,
  );
  // The home feed reads the newest public achievements.
  await knex.raw('create index achievements_public_earned_idx on achievements (earned_at desc) where public');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('achievements');
}
