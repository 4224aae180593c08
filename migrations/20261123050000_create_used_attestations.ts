import type { Knex } from 'knex';

// One-time native-app attestations already spent (a replayed X-App-Attestation is refused).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('used_attestations', (t) => {
    t.text('jti').primary();
    t.text('app_id').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
  await knex.raw('create index used_attestations_expiry_idx on used_attestations (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('used_attestations');
}
