import type { Knex } from 'knex';

/**
 * The public read cache (src/http/read-cache/read-cache.ts) drops what a committed change makes stale on
 * every instance: these triggers send `NOTIFY read_cache, '<fundraiser id>'` in the transaction
 * of every write that changes what a campaign's reads show (edits, status and visibility,
 * deletes, money counters and 24-hour buckets as gifts settle or are refunded, translations).
 * Postgres delivers a notification only when (and after) its transaction commits, whoever made
 * the change (API instance, worker, staff tool, plain SQL), and sends an identical payload once
 * per transaction. Unchanged rows (an update that writes the same values) notify nobody.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function read_cache_notify() returns trigger language plpgsql as $$
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
  for (const table of ['fundraisers', 'fundraiser_translations', 'fundraiser_paid_buckets']) {
    await knex.raw(`create trigger ${table}_read_cache_trg after insert or update or delete on ${table}
      for each row execute function read_cache_notify()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['fundraisers', 'fundraiser_translations', 'fundraiser_paid_buckets']) {
    await knex.raw(`drop trigger if exists ${table}_read_cache_trg on ${table}`);
  }
  await knex.raw('drop function if exists read_cache_notify()');
}
