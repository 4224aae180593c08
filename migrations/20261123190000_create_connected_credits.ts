import type { Knex } from 'knex';

// Money moved to a holder's connected account for something other than a campaign gift (today a
// community fund withdrawal), named by its bucket (`community:<id>`), and each paid payout's share
// of those buckets. A payout drains the whole connected balance, so without these a payout's split
// counted community money as campaign withdrawals.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('connected_credits', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('processor_transfer_id').notNullable().unique();
    t.text('processor_account_id').notNullable().references('processor_accounts.id');
    t.text('bucket').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.uuid('ledger_group_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table connected_credits add constraint connected_credits_amount_chk check (amount_cents > 0)');
  await knex.raw('create index connected_credits_account_idx on connected_credits (processor_account_id, bucket)');

  await knex.schema.createTable('payout_bucket_parts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('payout_id').notNullable().references('payouts.id');
    t.text('bucket').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.text('status').notNullable();
    t.date('arrival_date');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['payout_id', 'bucket']);
  });
  await knex.raw(`alter table payout_bucket_parts add constraint payout_bucket_parts_status_chk check (status in ('pending','in_transit','paid','failed'))`);

  // Withdrawals made before this table existed.
  await knex.raw(
    `insert into connected_credits (processor_transfer_id, processor_account_id, bucket, amount_cents, currency, ledger_group_id, created_at)
     select processor_transfer_id, processor_account_id, 'community:' || community_id, amount_cents, currency, ledger_group_id, created_at
       from community_withdrawals on conflict (processor_transfer_id) do nothing`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payout_bucket_parts');
  await knex.schema.dropTable('connected_credits');
}
