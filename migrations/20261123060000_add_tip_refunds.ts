import type { Knex } from 'knex';

// Refunds of platform tips: cumulative per payment (as the processor reports them), and a
// one-time tip refunded in full reads as refunded.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tip_payments', (t) => {
    t.bigInteger('refunded_cents').notNullable().defaultTo(0);
    t.timestamp('refunded_at', { useTz: true });
  });
  await knex.raw('alter table tip_payments add constraint tip_payments_refund_chk check (refunded_cents between 0 and amount_cents)');
  await knex.raw('create index tip_payments_pi_idx on tip_payments (processor_payment_intent_id) where processor_payment_intent_id is not null');
  await knex.raw('alter table tips drop constraint tips_status_chk');
  await knex.raw(`alter table tips add constraint tips_status_chk check (status in ('pending','paid','failed','canceled','refunded'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table tips drop constraint tips_status_chk');
  await knex.raw(`alter table tips add constraint tips_status_chk check (status in ('pending','paid','failed','canceled'))`);
  await knex.raw('drop index tip_payments_pi_idx');
  await knex.raw('alter table tip_payments drop constraint tip_payments_refund_chk');
  await knex.schema.alterTable('tip_payments', (t) => {
    t.dropColumn('refunded_cents');
    t.dropColumn('refunded_at');
  });
}
