import type { Knex } from 'knex';

/**
 * The live stream's journal of settled gifts (GET /fundraisers/{id}/live): one row per gift that
 * became paid, numbered by `seq`, which is the stream's event id and reconnect cursor.
 *
 * A plain sequence is not enough: two settlements of one campaign may commit in the other order
 * than they drew their numbers, and a viewer who has seen 11 would never see 10. So the row is
 * written by a deferred trigger, at commit, after taking a transaction-scoped advisory lock on
 * the campaign: the next settlement of that campaign draws its number only once this one is
 * committed and visible (locks are released after the commit is visible), so within a campaign
 * `seq` order is commit order, in every process. The lock is held only for the commit itself;
 * the settlement's own work still runs in parallel. `NOTIFY live_gift '<campaign>:<seq>'` goes
 * out with the commit; listeners read the rows after their last seq.
 *
 * Rows older than the replay window are pruned by the worker (live.prune).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table live_gifts (
      seq bigserial primary key,
      fundraiser_id uuid not null,
      donation_id uuid not null,
      -- The trigger runs at commit: clock_timestamp() is when the gift settled, not when its transaction began.
      settled_at timestamptz not null default clock_timestamp()
    )`);
  await knex.raw('create index live_gifts_fundraiser_seq_idx on live_gifts (fundraiser_id, seq)');
  await knex.raw('create index live_gifts_settled_at_idx on live_gifts (settled_at)');
  await knex.raw(`
    create function live_gift_journal() returns trigger language plpgsql as $$
    declare
      n bigint;
    begin
      -- Class 7411 ("live"), one lock per campaign; a hash collision only serializes two commits.
      perform pg_advisory_xact_lock(7411, hashtext(new.fundraiser_id::text));
      insert into live_gifts (fundraiser_id, donation_id) values (new.fundraiser_id, new.id) returning seq into n;
      perform pg_notify('live_gift', new.fundraiser_id::text || ':' || n::text);
      return null;
    end $$`);
  await knex.raw(`
    create constraint trigger donations_live_paid_trg after update of status on donations
      deferrable initially deferred for each row
      when (new.status = 'paid' and old.status is distinct from 'paid')
      execute function live_gift_journal()`);
  await knex.raw(`
    create constraint trigger donations_live_inserted_paid_trg after insert on donations
      deferrable initially deferred for each row
      when (new.status = 'paid')
      execute function live_gift_journal()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists donations_live_paid_trg on donations');
  await knex.raw('drop trigger if exists donations_live_inserted_paid_trg on donations');
  await knex.raw('drop function if exists live_gift_journal()');
  await knex.raw('drop table if exists live_gifts');
}
