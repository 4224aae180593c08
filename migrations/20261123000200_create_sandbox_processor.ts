import type { Knex } from 'knex';

// The sandbox processor's own objects (checkout sessions, payment intents, connected accounts,
// payouts), so the whole money flow runs offline and survives restarts. Unused with Stripe.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_objects', (t) => {
    t.text('id').primary();
    t.text('kind').notNullable();
    t.text('idempotency_key');
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index sandbox_objects_idem_idx on sandbox_objects (kind, idempotency_key) where idempotency_key is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_objects');
}
