import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pgcrypto');
  await knex.schema.createTable('feature_flags', (t) => {
    t.text('key').primary();
    t.boolean('enabled').notNullable();
    t.text('description');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('jobs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('queue').notNullable();
    t.jsonb('payload').notNullable().defaultTo('{}');
    t.text('singleton_key');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable().defaultTo(5);
    t.text('last_error');
    t.timestamp('run_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('done_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index jobs_due_idx on jobs (run_at) where done_at is null');
  await knex.raw(
    'create unique index jobs_singleton_idx on jobs (queue, singleton_key) where done_at is null and singleton_key is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('jobs');
  await knex.schema.dropTable('feature_flags');
}
