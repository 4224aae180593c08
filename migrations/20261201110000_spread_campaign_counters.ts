import type { Knex } from 'knex';

/**
 * A campaign's money counters move from its fundraisers row to shard rows
 * (docs/decisions/0023-campaign-counters-in-shards.md): every settlement adds to one of up to 32
 * rows (its connection's), and reads sum them, so two gifts to one campaign no longer wait
 * for each other's commit on one row. The same goes for the 30-second buckets of paid gifts,
 * which every gift of a campaign in the same half-minute used to update.
 *
 * The fundraisers columns stay as a ranking copy (the "most raised" sort and its index), which
 * the worker refreshes from the shards; nothing shows them as a campaign's figures.
 */
export async function up(knex: Knex): Promise<void> {
  // The row a transaction adds to: its connection's, 0 to 31. A connection runs one transaction at
  // a time, so two settlements in flight share a row only when their backends' ids agree modulo 32
  // (a gift-id hash would make two of 16 in flight collide about a third of the time). Any shard
  // may take any change, a refund included: only sums are read.
  await knex.raw(`
    create function counter_shard() returns smallint language sql stable parallel safe as $$
      select (pg_backend_pid() & 31)::smallint
    $$`);
  await knex.raw(`
    create table fundraiser_counter_shards (
      fundraiser_id uuid not null references fundraisers (id),
      shard smallint not null,
      raised_cents bigint not null default 0,
      tips_cents bigint not null default 0,
      donation_count integer not null default 0,
      donor_count integer not null default 0,
      primary key (fundraiser_id, shard)
    )`);
  // Carried over as shard 0: the sums start where the row's counters were.
  await knex.raw(`
    insert into fundraiser_counter_shards (fundraiser_id, shard, raised_cents, tips_cents, donation_count, donor_count)
    select id, 0, raised_cents, tips_cents, donation_count, donor_count from fundraisers
     where raised_cents <> 0 or tips_cents <> 0 or donation_count <> 0 or donor_count <> 0`);
  // A change of counts only, as for the paid buckets: the read cache answers its stale copy while it
  // refills. The function is read_cache_notify (20261127080100_extend_read_cache_notify.ts) with the
  // shard table named beside the buckets.
  await knex.raw(readCacheNotify("tg_table_name in ('fundraiser_paid_buckets', 'fundraiser_counter_shards')"));
  await knex.raw(`create trigger fundraiser_counter_shards_read_cache_trg after insert or update or delete on fundraiser_counter_shards
    for each row execute function read_cache_notify()`);

  // Each campaign's figures as reads show them, for operators and tests (reads embed counterSql instead).
  await knex.raw(`
    create view fundraiser_counters as
    select f.id, coalesce(s.raised_cents, 0)::bigint as raised_cents, coalesce(s.tips_cents, 0)::bigint as tips_cents,
           coalesce(s.donation_count, 0)::int as donation_count, coalesce(s.donor_count, 0)::int as donor_count,
           f.recurring_donor_count, f.goal_reached_at, f.first_paid_at
      from fundraisers f
      left join lateral (select sum(raised_cents) as raised_cents, sum(tips_cents) as tips_cents, sum(donation_count) as donation_count,
                                sum(donor_count) as donor_count
                           from fundraiser_counter_shards cs where cs.fundraiser_id = f.id) s on true`);

  await knex.raw('alter table fundraiser_paid_buckets add column shard smallint not null default 0');
  await knex.raw('alter table fundraiser_paid_buckets drop constraint fundraiser_paid_buckets_pkey');
  await knex.raw('alter table fundraiser_paid_buckets add primary key (fundraiser_id, bucket, shard)');
  await knex.raw(`
    create or replace function donations_paid_buckets() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.status = 'paid' and old.paid_at is not null then
        insert into fundraiser_paid_buckets (fundraiser_id, bucket, shard, n)
        values (old.fundraiser_id, paid_bucket_of(old.paid_at), counter_shard(), -1)
        on conflict (fundraiser_id, bucket, shard) do update set n = fundraiser_paid_buckets.n - 1;
      end if;
      if tg_op in ('INSERT', 'UPDATE') and new.status = 'paid' and new.paid_at is not null then
        insert into fundraiser_paid_buckets (fundraiser_id, bucket, shard, n)
        values (new.fundraiser_id, paid_bucket_of(new.paid_at), counter_shard(), 1)
        on conflict (fundraiser_id, bucket, shard) do update set n = fundraiser_paid_buckets.n + 1;
      end if;
      return null;
    end $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    update fundraisers f set raised_cents = s.raised, tips_cents = s.tips, donation_count = s.donations, donor_count = s.donors
      from (select fundraiser_id, sum(raised_cents) as raised, sum(tips_cents) as tips, sum(donation_count) as donations,
                   sum(donor_count) as donors from fundraiser_counter_shards group by 1) s
     where s.fundraiser_id = f.id`);
  await knex.raw('drop view fundraiser_counters');
  await knex.raw('drop table fundraiser_counter_shards');
  await knex.raw(readCacheNotify("tg_table_name = 'fundraiser_paid_buckets'"));
  await knex.raw(`
    create or replace function donations_paid_buckets() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.status = 'paid' and old.paid_at is not null then
        update fundraiser_paid_buckets set n = n - 1
         where fundraiser_id = old.fundraiser_id and bucket = paid_bucket_of(old.paid_at);
      end if;
      if tg_op in ('INSERT', 'UPDATE') and new.status = 'paid' and new.paid_at is not null then
        insert into fundraiser_paid_buckets (fundraiser_id, bucket, n)
        values (new.fundraiser_id, paid_bucket_of(new.paid_at), 1)
        on conflict (fundraiser_id, bucket) do update set n = fundraiser_paid_buckets.n + 1;
      end if;
      return null;
    end $$`);
  await knex.raw('drop function counter_shard()');
  await knex.raw(`create temp table b as select fundraiser_id, bucket, sum(n)::int as n from fundraiser_paid_buckets group by 1, 2`);
  await knex.raw('delete from fundraiser_paid_buckets');
  await knex.raw('alter table fundraiser_paid_buckets drop constraint fundraiser_paid_buckets_pkey');
  await knex.raw('alter table fundraiser_paid_buckets drop column shard');
  await knex.raw('alter table fundraiser_paid_buckets add primary key (fundraiser_id, bucket)');
  await knex.raw('insert into fundraiser_paid_buckets select fundraiser_id, bucket, n from b');
  await knex.raw('drop table b');
}

const COUNT_COLUMNS = ['raised_cents', 'tips_cents', 'donation_count', 'donor_count', 'goal_reached_at', 'first_paid_at', 'shares_count', 'updated_at'];

/** read_cache_notify as 20261127080100 defines it, with `countsOnly` deciding which tables notify a count change. */
function readCacheNotify(countsOnly: string): string {
  return `
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
      elsif ${countsOnly} then
        perform pg_notify('read_cache', r->>'fundraiser_id');
      elsif tg_table_name = 'users' then
        perform pg_notify('read_cache', f.id::text || ':content') from fundraisers f where f.owner_user_id = (r->>'id')::uuid;
      elsif r->>'fundraiser_id' is not null then
        perform pg_notify('read_cache', (r->>'fundraiser_id') || ':content');
      else
        perform pg_notify('read_cache', '*');
      end if;
      return null;
    end $$`;
}
