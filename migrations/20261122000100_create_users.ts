import type { Knex } from 'knex';

// The account core every module refers to. Identity details (credentials, tokens, keys,
// verification) live in their own tables created by the identity migrations.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable();
    t.text('name');
    t.text('avatar');
    t.text('profile_slug');
    t.specificType('roles', 'text[]').notNullable().defaultTo('{user}');
    t.text('status').notNullable().defaultTo('active'); // active | suspended | banned | deactivated
    t.boolean('email_verified').notNullable().defaultTo(false);
    t.timestamp('email_verified_at', { useTz: true });
    t.text('locale').notNullable().defaultTo('en');
    t.text('private_contact_email');
    t.timestamp('private_contact_verified_at', { useTz: true });
    t.boolean('profile_private').notNullable().defaultTo(false);
    t.text('bio');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index users_email_lower_idx on users (lower(email))');
  await knex.raw('create unique index users_profile_slug_idx on users (profile_slug) where profile_slug is not null');
  await knex.raw(`alter table users add constraint users_status_chk check (status in ('active','suspended','banned','deactivated'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('users');
}
