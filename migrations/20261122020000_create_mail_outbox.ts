import type { Knex } from 'knex';

// Every mail the service sends, whether over SMTP or only logged: the outbox is the record.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mail_outbox', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('to').notNullable();
    t.text('template').notNullable();
    t.text('locale').notNullable();
    t.text('subject').notNullable();
    t.text('text').notNullable();
    t.text('html').notNullable();
    t.text('status').notNullable().defaultTo('queued');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table mail_outbox add constraint mail_outbox_status_chk check (status in ('queued','sent','failed'))`);
  await knex.raw('create index mail_outbox_to_idx on mail_outbox (lower("to"), created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mail_outbox');
}
