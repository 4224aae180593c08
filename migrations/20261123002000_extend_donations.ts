import type { Knex } from 'knex';

// Donations, second step: what settlement and receipts need beyond the first schema.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('donations', (t) => {
    // What open or lost disputes took back from the charge (0 again when a dispute is won).
    t.bigInteger('disputed_cents').notNullable().defaultTo(0);
    // The donor's locale at checkout: the receipt mail is written in it.
    t.text('locale').notNullable().defaultTo('en');
  });
  await knex.raw('alter table donations add constraint donations_disputed_chk check (disputed_cents >= 0)');
  // Every gift of a campaign whatever its status ("has this campaign ever collected money").
  await knex.raw('create index donations_fundraiser_idx on donations (fundraiser_id, created_at desc)');
  await knex.raw('create index donations_charge_idx on donations (processor_charge_id) where processor_charge_id is not null');
  // One live donor note per gift: a second note replaces the first; a retracted (deleted) one is kept.
  await knex.raw('create unique index comments_donation_note_idx on comments (donation_id) where donation_id is not null and deleted_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists comments_donation_note_idx');
  await knex.raw('drop index if exists donations_charge_idx');
  await knex.raw('drop index if exists donations_fundraiser_idx');
  await knex.raw('alter table donations drop constraint if exists donations_disputed_chk');
  await knex.schema.alterTable('donations', (t) => {
    t.dropColumn('locale');
    t.dropColumn('disputed_cents');
  });
}
