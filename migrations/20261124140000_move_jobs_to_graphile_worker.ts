import type { Knex } from 'knex';

// Background jobs move to graphile-worker (its schema is migrated by migrateLatest before these
// migrations run). Jobs still waiting in the old table are re-added there, then the table goes.
// job_inbox records which consumer (event subscriber, atomic job) handled which message, so
// each reacts exactly once.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('job_inbox', (t) => {
    t.text('consumer').notNullable();
    t.text('message_id').notNullable();
    t.timestamp('handled_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['consumer', 'message_id']);
  });
  await knex.raw('create index job_inbox_handled_idx on job_inbox (handled_at)');
  const graphile = (await knex.raw(`select to_regproc('graphile_worker.add_job') is not null as ok`)).rows[0].ok;
  if (!graphile) throw new Error('graphile_worker schema missing: run migrations through migrateLatest (src/db/knex.ts)');
  await knex.raw(`
    select graphile_worker.add_job(queue, payload::json, run_at => run_at,
             max_attempts => greatest(max_attempts - attempts, 1),
             job_key => case when singleton_key is null then null else queue || ':' || singleton_key end,
             job_key_mode => 'preserve_run_at')
      from jobs
     where done_at is null and attempts < max_attempts`);
  await knex.schema.dropTable('jobs');
}

export async function down(knex: Knex): Promise<void> {
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
    t.timestamp('locked_until', { useTz: true });
    t.uuid('lease_token');
  });
  await knex.raw('create index jobs_due_idx on jobs (run_at) where done_at is null');
  await knex.raw('create unique index jobs_singleton_idx on jobs (queue, singleton_key) where done_at is null and singleton_key is not null');
  await knex.schema.dropTable('job_inbox');
}
