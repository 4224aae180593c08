import type { Knex } from 'knex';

// The event outbox, leased jobs, the append-only double-entry ledger and the processor's
// exactly-once record. Money tables of later modules (donations, tips, payouts) reference these.
export async function up(knex: Knex): Promise<void> {
  // Jobs are claimed with a lease: the handler runs outside the claiming transaction, and a
  // worker that dies mid-job lets the lease lapse so another one picks the job up.
  await knex.schema.alterTable('jobs', (t) => {
    t.timestamp('locked_until', { useTz: true });
    t.uuid('lease_token');
  });

  // Side effects are events written in the same transaction as the change that causes them.
  await knex.schema.createTable('events', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('type').notNullable();
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index events_type_created_idx on events (type, created_at desc)');

  await knex.schema.createTable('ledger_entries', (t) => {
    t.bigIncrements('id');
    t.uuid('group_id').notNullable();
    t.text('account').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.text('kind').notNullable();
    t.text('source_event_id');
    t.uuid('fundraiser_id');
    t.uuid('donation_id');
    t.uuid('tip_id');
    t.text('processor_account_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table ledger_entries add constraint ledger_entries_currency_chk check (currency ~ '^[a-z]{3}$')`);
  await knex.raw('create index ledger_entries_group_idx on ledger_entries (group_id)');
  await knex.raw('create index ledger_entries_account_idx on ledger_entries (account)');
  await knex.raw('create index ledger_entries_fundraiser_idx on ledger_entries (fundraiser_id) where fundraiser_id is not null');
  await knex.raw('create index ledger_entries_donation_idx on ledger_entries (donation_id) where donation_id is not null');
  // Append-only: corrections are new balanced groups (reversals), never edits.
  await knex.raw(`
    create function ledger_entries_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'ledger_entries is append-only' using errcode = 'P0001';
    end $$`);
  await knex.raw(`create trigger ledger_entries_no_update before update or delete on ledger_entries
    for each row execute function ledger_entries_append_only()`);
  await knex.raw(`create trigger ledger_entries_no_truncate before truncate on ledger_entries
    for each statement execute function ledger_entries_append_only()`);
  // Every group balances per currency, checked at commit (the rows of a group arrive one by one).
  await knex.raw(`
    create function ledger_group_balanced() returns trigger language plpgsql as $$
    declare off bigint;
    begin
      select sum(amount_cents) into off from ledger_entries where group_id = new.group_id and currency = new.currency;
      if off <> 0 then
        raise exception 'ledger group % is unbalanced by % %', new.group_id, off, new.currency using errcode = 'P0002';
      end if;
      return null;
    end $$`);
  await knex.raw(`create constraint trigger ledger_entries_balanced after insert on ledger_entries
    deferrable initially deferred for each row execute function ledger_group_balanced()`);

  // Each processor webhook event takes effect once: its id is recorded in the transaction of its effect.
  await knex.schema.createTable('processed_webhook_events', (t) => {
    t.text('event_id').primary();
    t.text('type').notNullable();
    t.text('outcome').notNullable();
    t.timestamp('processed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // Secrets the service generates for itself once (e.g. the sandbox webhook signing secret), shared by replicas.
  await knex.schema.createTable('app_secrets', (t) => {
    t.text('name').primary();
    t.text('value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // Money totals shown on reads are counters kept by the ledger postings, in the same transaction.
  await knex.schema.alterTable('fundraisers', (t) => {
    t.bigInteger('tips_cents').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fundraisers', (t) => t.dropColumn('tips_cents'));
  await knex.schema.dropTable('app_secrets');
  await knex.schema.dropTable('processed_webhook_events');
  await knex.raw('drop table ledger_entries');
  await knex.raw('drop function ledger_group_balanced()');
  await knex.raw('drop function ledger_entries_append_only()');
  await knex.schema.dropTable('events');
  await knex.schema.alterTable('jobs', (t) => {
    t.dropColumn('locked_until');
    t.dropColumn('lease_token');
  });
}
