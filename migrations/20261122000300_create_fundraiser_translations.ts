import type { Knex } from 'knex';

// Stored translations of campaign text, one row per other locale; `lang` reads overlay them.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('fundraiser_translations', (t) => {
    t.uuid('fundraiser_id').notNullable().references('fundraisers.id').onDelete('CASCADE');
    t.text('lang').notNullable();
    t.text('title');
    t.text('summary');
    t.text('story_html');
    t.text('source').notNullable().defaultTo('machine'); // human | machine
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['fundraiser_id', 'lang']);
  });
  await knex.raw(`alter table fundraiser_translations add constraint fundraiser_translations_lang_chk check (lang in ('en','ru','uk','es'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fundraiser_translations');
}
