import type { Knex } from 'knex';

// Per-account sign-in throttle (docs/decisions/0019-per-account-sign-in-throttle.md): failed
// sign-ins in a row per address, whatever the IP or route, and until when the next attempt is
// refused. In Postgres so it survives restarts and every instance sees the same count.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sign_in_throttle', (t) => {
    // sha256 of the normalised address: no address in clear, and unknown addresses count too.
    t.text('account_key').primary();
    t.integer('failures').notNullable();
    t.timestamp('blocked_until', { useTz: true }).nullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Streaks untouched for a day are pruned (sign-in-throttle.ts), so sprayed addresses do not pile up.
    t.index(['updated_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_in_throttle');
}
