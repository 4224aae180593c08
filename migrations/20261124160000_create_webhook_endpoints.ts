import type { Knex } from 'knex';

// Outbound webhooks (docs/decisions/0017-outbound-webhooks.md): where an account or an organization wants events
// pushed, and one delivery row per (endpoint, event) carrying its attempts and next run.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // The creator; the owner is the organization when organization_id is set, else this user.
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('organization_id').references('organizations.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('description');
    t.text('status').notNullable().defaultTo('enabled');
    // Kept as issued (whsec_...): the sender needs the key itself to sign every delivery.
    t.text('secret').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table webhook_endpoints add constraint webhook_endpoints_status_check check (status in ('enabled', 'disabled'))`);
  await knex.raw('create index webhook_endpoints_user_idx on webhook_endpoints (user_id) where organization_id is null');
  await knex.raw('create index webhook_endpoints_org_idx on webhook_endpoints (organization_id) where organization_id is not null');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    // The domain event's id (a ping's own uuid): sent as webhook-id, the same on every attempt.
    t.uuid('event_id').notNullable();
    t.text('event_type').notNullable();
    // The exact JSON body, so every attempt signs and sends the same bytes.
    t.text('payload').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['endpoint_id', 'event_id']);
  });
  await knex.raw(`alter table webhook_deliveries add constraint webhook_deliveries_status_check check (status in ('pending', 'succeeded', 'failed'))`);
  await knex.raw('create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_endpoints');
}
