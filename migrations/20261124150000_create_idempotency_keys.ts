import type { Knex } from 'knex';

// One row per Idempotency-Key a caller sent to a POST (docs/decisions/0010-idempotency-keys.md): claimed in_flight
// before the handler runs, completed with the answer it gave, kept 24 hours. The scope is the
// caller's account id, or 'guest' for every unsigned caller. `claim` tells one claim of a key
// from a later one (a stale in-flight row may be taken over) so a slow first request never
// completes or frees the claim that replaced it.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('scope').notNullable();
    t.text('key').notNullable();
    t.text('method').notNullable();
    t.text('path').notNullable();
    t.text('fingerprint').notNullable();
    t.text('state').notNullable();
    t.uuid('claim').notNullable();
    t.integer('status_code');
    t.jsonb('response_headers');
    t.binary('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['scope', 'key']);
    t.index(['created_at']);
  });
  await knex.raw(`alter table idempotency_keys add constraint idempotency_keys_state_check check (state in ('in_flight', 'complete'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
