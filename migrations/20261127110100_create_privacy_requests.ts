import type { Knex } from 'knex';

// Privacy (docs/decisions/0009-erasure-pseudonymises-money.md): data exports built by a job, scheduled erasures with their grace
// period, and guests' confirmation tokens. None of these rows holds personal data beyond a user
// id (an erased account's id points at its pseudonymised users row) or, for a guest request not
// yet confirmed, the address the confirmation mail goes to (cleared when confirmed or expired).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('privacy_exports', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').references('users.id').onDelete('CASCADE');
    // A guest export: the confirmed request it answers (the address lives there until sent).
    t.uuid('request_id');
    t.text('status').notNullable().defaultTo('pending');
    t.text('storage_key');
    t.timestamp('ready_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table privacy_exports add constraint privacy_exports_status_chk check (status in ('pending','ready','failed','expired'))`);
  await knex.raw('create index privacy_exports_user_idx on privacy_exports (user_id, created_at desc)');

  await knex.schema.createTable('privacy_erasures', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('scheduled');
    t.timestamp('scheduled_for', { useTz: true }).notNullable();
    t.timestamp('done_at', { useTz: true });
    t.timestamp('cancelled_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table privacy_erasures add constraint privacy_erasures_status_chk check (status in ('scheduled','cancelled','done'))`);
  await knex.raw(`create unique index privacy_erasures_one_scheduled on privacy_erasures (user_id) where status = 'scheduled'`);
  await knex.raw(`create index privacy_erasures_due_idx on privacy_erasures (scheduled_for) where status = 'scheduled'`);

  await knex.schema.createTable('privacy_requests', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('token_hash').notNullable().unique();
    t.text('kind').notNullable();
    // Needed to act on the request; set to null once it is carried out (or expires unused).
    t.text('email');
    t.text('status').notNullable().defaultTo('pending');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table privacy_requests add constraint privacy_requests_kind_chk check (kind in ('export','erasure'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('privacy_requests');
  await knex.schema.dropTable('privacy_erasures');
  await knex.schema.dropTable('privacy_exports');
}
