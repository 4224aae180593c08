import type { Knex } from 'knex';

/**
 * Every table a read-cached answer shows notifies the read cache on commit (docs/decisions/0005-read-cache-invalidated-by-the-database.md; the
 * coverage test test/api/read-cache-sources.test.ts derives the list from the reads' SQL).
 * Payloads: `<fundraiser id>` for a change of counts only (money counters, shares, the 24-hour
 * buckets: the spec lets these be up to 30 s stale, and the cache answers its stale copy while it
 * refills, so a gift every 50 ms does not send every reader to the database), `<id>:content` for
 * anything someone edits (dropped outright on every instance), `*` when the row is not one
 * campaign's (a category): everything goes. Users: one `:content` per campaign they own.
 */
const TABLES = ['fundraisers', 'fundraiser_translations', 'fundraiser_paid_buckets', 'users', 'categories'];
const COUNT_COLUMNS = ['raised_cents', 'tips_cents', 'donation_count', 'donor_count', 'goal_reached_at', 'first_paid_at', 'shares_count', 'updated_at'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function read_cache_notify() returns trigger language plpgsql as $$
    declare
      r jsonb := to_jsonb(case when tg_op = 'DELETE' then old else new end);
    begin
      if tg_op = 'UPDATE' and old is not distinct from new then
        return null;
      end if;
      if tg_table_name = 'fundraisers' then
        if tg_op = 'UPDATE' and (to_jsonb(old) - '{${COUNT_COLUMNS.join(',')}}'::text[])
                              = (to_jsonb(new) - '{${COUNT_COLUMNS.join(',')}}'::text[]) then
          perform pg_notify('read_cache', new.id::text);
        else
          perform pg_notify('read_cache', (r->>'id') || ':content');
        end if;
      elsif tg_table_name = 'fundraiser_paid_buckets' then
        perform pg_notify('read_cache', r->>'fundraiser_id');
      elsif tg_table_name = 'users' then
        perform pg_notify('read_cache', f.id::text || ':content') from fundraisers f where f.owner_user_id = (r->>'id')::uuid;
      elsif r->>'fundraiser_id' is not null then
        perform pg_notify('read_cache', (r->>'fundraiser_id') || ':content');
      else
        perform pg_notify('read_cache', '*');
      end if;
      return null;
    end $$`);
  for (const table of TABLES.slice(3)) {
    await knex.raw(`create trigger ${table}_read_cache_trg after insert or update or delete on ${table}
      for each row execute function read_cache_notify()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES.slice(3)) await knex.raw(`drop trigger if exists ${table}_read_cache_trg on ${table}`);
  await knex.raw(`
    create or replace function read_cache_notify() returns trigger language plpgsql as $$
    declare
      fid uuid;
    begin
      if tg_op = 'UPDATE' and old is not distinct from new then
        return null;
      end if;
      if tg_table_name = 'fundraisers' then
        fid := case when tg_op = 'DELETE' then old.id else new.id end;
      else
        fid := case when tg_op = 'DELETE' then old.fundraiser_id else new.fundraiser_id end;
      end if;
      perform pg_notify('read_cache', fid::text);
      return null;
    end $$`);
}
