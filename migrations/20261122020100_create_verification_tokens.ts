import type { Knex } from 'knex';

// Emailed verification links. Only the SHA-256 of the token is kept; a link is single use
// and a newer link for the same user and kind deletes the older unused ones.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('verification_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('kind').notNullable(); // email | private_contact
    t.text('email').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table verification_tokens add constraint verification_tokens_kind_chk check (kind in ('email','private_contact'))`);
  await knex.raw('create index verification_tokens_user_idx on verification_tokens (user_id, kind) where used_at is null');
  // A private contact address can be verified by one account only (the contact_taken outcome);
  // the index closes the race between two accounts verifying the same address at once.
  await knex.raw(
    'create unique index users_private_contact_verified_idx on users (lower(private_contact_email)) where private_contact_verified_at is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists users_private_contact_verified_idx');
  await knex.schema.dropTable('verification_tokens');
}
