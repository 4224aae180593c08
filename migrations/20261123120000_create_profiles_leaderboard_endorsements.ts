import type { Knex } from 'knex';

// Community reads: endorsements (and requests for them), the opaque keys of public donor pages,
// and the leaderboard's precomputed ranking (refreshed by a job: a live aggregate over every gift
// cannot answer a public read fast enough).
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pgcrypto');

  await knex.schema.createTable('endorsements', (t) => {
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('message');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['fundraiser_id', 'user_id']);
  });
  await knex.raw('create index endorsements_user_idx on endorsements (user_id, created_at desc)');

  await knex.schema.createTable('endorsement_requests', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.uuid('requested_by').notNullable().references('users.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index endorsement_requests_fundraiser_idx on endorsement_requests (fundraiser_id, created_at desc)');

  // Public donor pages are addressed by the first 20 hex characters of an HMAC of the donor's
  // identity, so a key names a donor without revealing (or letting anyone derive) who it is.
  await knex.schema.createTable('donor_keys', (t) => {
    t.text('kind').notNullable(); // guest | anon
    t.text('key').notNullable();
    t.text('identity').notNullable(); // guest: lower(email); anon: u:<user id> | e:<lower(email)> | d:<donation id>
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['kind', 'key']);
    t.unique(['kind', 'identity']);
  });
  await knex.raw(`alter table donor_keys add constraint donor_keys_kind_chk check (kind in ('guest','anon'))`);
  await knex.raw(`alter table donor_keys add constraint donor_keys_key_chk check (key ~ '^[0-9a-f]{20}$')`);
  // A guest donor's gifts are found by address (the donor page and its backfill).
  await knex.raw('create index donations_guest_email_idx on donations (lower(donor_email)) where donor_user_id is null');
  await knex.raw(`insert into app_secrets (name, value) values ('donor_key_secret', encode(gen_random_bytes(32), 'hex'))
    on conflict (name) do nothing`);
  await knex.raw(`
    with s as (select value from app_secrets where name = 'donor_key_secret'),
    ids as (
      select distinct 'guest' as kind, lower(donor_email) as identity from donations
       where status = 'paid' and not anonymous and donor_user_id is null and donor_email is not null
      union
      select distinct 'anon', case when donor_user_id is not null then 'u:' || donor_user_id
                                   when donor_email is not null then 'e:' || lower(donor_email) else 'd:' || id end
        from donations where status = 'paid' and anonymous
    )
    insert into donor_keys (kind, key, identity)
    select ids.kind, left(encode(hmac(ids.kind || ':' || ids.identity, s.value, 'sha256'), 'hex'), 20), ids.identity from ids, s
    on conflict do nothing`);

  // One row per ranked subject, per period and audience, in rank order (rank 1 first).
  await knex.schema.createTable('leaderboard_entries', (t) => {
    t.text('period').notNullable(); // all | 30d | 7d
    t.text('audience').notNullable(); // all | creators | ambassadors | donors
    t.integer('rank').notNullable();
    t.text('kind').notNullable(); // user | anonymous
    t.uuid('user_id');
    t.text('anonymous_key');
    t.bigInteger('raised_cents').notNullable().defaultTo(0);
    t.bigInteger('given_cents').notNullable().defaultTo(0);
    t.bigInteger('driven_cents').notNullable().defaultTo(0);
    t.bigInteger('impact_cents').notNullable().defaultTo(0);
    t.primary(['period', 'audience', 'rank']);
  });
  await knex.raw('create index leaderboard_entries_user_idx on leaderboard_entries (user_id, period, audience) where user_id is not null');
  await knex.schema.createTable('leaderboard_state', (t) => {
    t.integer('id').primary();
    t.timestamp('refreshed_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('leaderboard_state');
  await knex.schema.dropTable('leaderboard_entries');
  await knex.raw(`delete from app_secrets where name = 'donor_key_secret'`);
  await knex.raw('drop index if exists donations_guest_email_idx');
  await knex.schema.dropTable('donor_keys');
  await knex.schema.dropTable('endorsement_requests');
  await knex.schema.dropTable('endorsements');
}
