import type { Knex } from 'knex';

// A community payment refunded at the processor (in parts or whole): how much of it has been
// taken back out of the fund so far, so each charge.refunded report moves only what is new.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table community_payments add column refunded_cents integer not null default 0');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table community_payments drop column refunded_cents');
}
