import type { Knex } from 'knex';

// Identity: the local identity provider's store (signing keys, password credentials,
// refresh-token sessions, one-time codes), ambassador invitations, and the account-level
// cut-off used by sign-out-everywhere.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    // Tokens issued (iat) before this instant are refused, whatever their kind.
    t.timestamp('tokens_valid_after', { useTz: true });
    // Subject of the external identity provider (Cognito `sub`); the local IdP uses users.id.
    t.text('idp_subject');
  });
  await knex.raw('create unique index users_idp_subject_idx on users (idp_subject) where idp_subject is not null');

  await knex.schema.createTable('idp_signing_keys', (t) => {
    t.text('kid').primary();
    t.text('private_pem').notNullable();
    t.text('public_pem').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Retired keys stay published until every token they signed has expired.
    t.timestamp('retired_at', { useTz: true });
  });

  await knex.schema.createTable('idp_credentials', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    // Null for accounts created through a social provider: they have no password.
    t.text('password_hash');
    t.boolean('confirmed').notNullable().defaultTo(true);
    // Operator-forced reset: the next sign-in answers NEW_PASSWORD_REQUIRED.
    t.boolean('force_new_password').notNullable().defaultTo(false);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('idp_sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    // SHA-256 of the refresh token; the token itself is never stored.
    t.text('refresh_token_hash').notNullable().unique();
    t.uuid('impersonated_by').references('users.id').onDelete('SET NULL');
    t.timestamp('auth_time', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['user_id']);
  });

  await knex.schema.createTable('idp_codes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('purpose').notNullable(); // confirm_signup | password_reset
    t.text('code_hash').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['user_id', 'purpose']);
  });
  await knex.raw(`alter table idp_codes add constraint idp_codes_purpose_chk check (purpose in ('confirm_signup','password_reset'))`);

  await knex.schema.createTable('ambassador_invites', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('token_hash').notNullable().unique();
    // When set, only this address (case-insensitive) may use the invitation.
    t.text('email');
    t.timestamp('used_at', { useTz: true });
    t.uuid('used_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ambassador_invites');
  await knex.schema.dropTable('idp_codes');
  await knex.schema.dropTable('idp_sessions');
  await knex.schema.dropTable('idp_credentials');
  await knex.schema.dropTable('idp_signing_keys');
  await knex.raw('drop index if exists users_idp_subject_idx');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('tokens_valid_after');
    t.dropColumn('idp_subject');
  });
}
