import type { Knex } from 'knex';

// Links an account to a social sign-in (OpenID Connect) identity. An account created through a
// provider has a row here and no password credential.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('user_identities', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('provider').notNullable(); // provider_a | provider_b
    t.text('subject').notNullable(); // the provider's `sub` claim
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('email'); // the address the provider asserted when the link was made
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['provider', 'subject']);
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('user_identities');
}
