import type { Knex } from 'knex';

// External providers (Cognito with an app-client secret) need the username to refresh a
// session. The browser's id_token cookie lapses after an hour, so the refresh token's owner is
// remembered here, by hash only, for the refresh cookie's lifetime.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('refresh_token_owners', (t) => {
    t.text('token_hash').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('subject').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index refresh_token_owners_user_idx on refresh_token_owners (user_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('refresh_token_owners');
}
