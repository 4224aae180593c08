import type { Knex } from 'knex';

// donations_last_24h reads per-campaign counts of paid gifts in 30-second buckets (at most
// 2,880 rows in a day) instead of every gift of the last day: a campaign taking tens of
// thousands of gifts a day reads as fast as a quiet one. A trigger keeps the buckets in the
// transaction of every write to donations (settlement, refunds, imports), so they never drift.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('fundraiser_paid_buckets', (t) => {
    t.uuid('fundraiser_id').notNullable();
    t.timestamp('bucket', { useTz: true }).notNullable();
    t.integer('n').notNullable();
    t.primary(['fundraiser_id', 'bucket']);
  });
  await knex.raw(`
    create function paid_bucket_of(ts timestamptz) returns timestamptz language sql immutable as $$
      select to_timestamp(floor(extract(epoch from ts) / 30) * 30)
    $$`);
  await knex.raw(`
    create function donations_paid_buckets() returns trigger language plpgsql as $$
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
  await knex.raw(`create trigger donations_paid_buckets_ins after insert or delete on donations
    for each row execute function donations_paid_buckets()`);
  await knex.raw(`create trigger donations_paid_buckets_upd after update of status, paid_at, fundraiser_id on donations
    for each row when (old.status is distinct from new.status or old.paid_at is distinct from new.paid_at
                       or old.fundraiser_id is distinct from new.fundraiser_id)
    execute function donations_paid_buckets()`);
  await knex.raw(`insert into fundraiser_paid_buckets (fundraiser_id, bucket, n)
    select fundraiser_id, paid_bucket_of(paid_at), count(*) from donations
     where status = 'paid' and paid_at is not null group by 1, 2`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger donations_paid_buckets_upd on donations');
  await knex.raw('drop trigger donations_paid_buckets_ins on donations');
  await knex.raw('drop function donations_paid_buckets()');
  await knex.raw('drop function paid_bucket_of(timestamptz)');
  await knex.schema.dropTable('fundraiser_paid_buckets');
}
