import type { Knex } from 'knex';

// Long-lived API keys for scripts. The secret is never stored: only its SHA-256 and the
// first 12 characters (prefix) for display.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('key_hash').notNullable().unique();
    t.text('prefix').notNullable();
    t.specificType('scopes', 'text[]').notNullable().defaultTo('{*}');
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index api_keys_user_idx on api_keys (user_id, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
}
