import type { Knex } from 'knex';

// What each processed processor event meant (its typed kind) and the row it named, so
// check-ledger can compare the payments the processor reported as succeeded against the rows
// they should have settled (a success recorded against a gift that is not paid is lost money).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('processed_webhook_events', (t) => {
    t.text('kind');
    t.text('ref_kind');
    t.text('ref_id');
  });
  await knex.raw(`create index processed_webhook_events_ref on processed_webhook_events (ref_kind, kind) where ref_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('processed_webhook_events', (t) => {
    t.dropColumn('kind');
    t.dropColumn('ref_kind');
    t.dropColumn('ref_id');
  });
}
