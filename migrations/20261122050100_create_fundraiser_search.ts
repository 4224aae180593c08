import type { Knex } from 'knex';

// Search and listing support for GET /fundraisers at 100k+ campaigns:
// - `search_vector`: title (A), summary (B), category names and location (C), story text (D),
//   each in the campaign's language configuration (english / russian / simple for uk /
//   spanish), plus every stored translation in its own configuration. Kept by triggers so every
//   writer (API, CLI, jobs, SQL) gets it; only edits of the indexed columns recompute it, not the
//   money counters.
// - partial indexes whose predicate is the list's base filter (public, not deleted, active or
//   ended), so the list, sort=raised, near (bounding box) and search reads stay index scans.
const LISTABLE = `deleted_at is null and visibility = 'public' and status in ('active','ended')`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.raw(`
    create or replace function cf_ts_config(lang text) returns regconfig
    language sql immutable parallel safe as $$
      select case lang
        when 'en' then 'english'::regconfig
        when 'ru' then 'russian'::regconfig
        when 'es' then 'spanish'::regconfig
        else 'simple'::regconfig
      end
    $$`);
  // Indexing only: tags become spaces, entities are dropped. Display HTML is sanitised elsewhere.
  await knex.raw(`
    create or replace function cf_html_text(html text) returns text
    language sql immutable parallel safe as $$
      select left(regexp_replace(regexp_replace(coalesce(html, ''), '<[^>]*>', ' ', 'g'), '&[#A-Za-z0-9]+;', ' ', 'g'), 200000)
    $$`);
  await knex.raw('alter table fundraisers add column search_vector tsvector');
  await knex.raw(`
    create or replace function fundraisers_search_vector() returns trigger
    language plpgsql as $$
    declare
      cfg regconfig := cf_ts_config(new.source_language);
      v tsvector;
      tr record;
    begin
      v := setweight(to_tsvector(cfg, coalesce(new.title, '')), 'A')
        || setweight(to_tsvector(cfg, coalesce(new.summary, '')), 'B')
        || setweight(to_tsvector(cfg, cf_html_text(new.story_html)), 'D')
        || setweight(to_tsvector('simple', concat_ws(' ', new.location, new.location_label)), 'C')
        || setweight(to_tsvector('simple', coalesce((
             select concat_ws(' ', c.slug, c.names->>'en', c.names->>'ru', c.names->>'uk', c.names->>'es')
             from categories c where c.id = new.category_id), '')), 'C');
      for tr in select lang, title, summary, story_html from fundraiser_translations where fundraiser_id = new.id loop
        v := v
          || setweight(to_tsvector(cf_ts_config(tr.lang), coalesce(tr.title, '')), 'A')
          || setweight(to_tsvector(cf_ts_config(tr.lang), coalesce(tr.summary, '')), 'B')
          || setweight(to_tsvector(cf_ts_config(tr.lang), cf_html_text(tr.story_html)), 'D');
      end loop;
      new.search_vector := v;
      return new;
    end
    $$`);
  await knex.raw(`
    create trigger fundraisers_search_vector_trg
    before insert or update of title, summary, story_html, category_id, location, location_label, source_language
    on fundraisers for each row execute function fundraisers_search_vector()`);
  // A translation change re-touches its campaign so the trigger above folds it in.
  await knex.raw(`
    create or replace function fundraiser_translations_touch() returns trigger
    language plpgsql as $$
    begin
      update fundraisers set title = title
      where id = (case when tg_op = 'DELETE' then old.fundraiser_id else new.fundraiser_id end);
      return null;
    end
    $$`);
  await knex.raw(`
    create trigger fundraiser_translations_touch_trg
    after insert or update or delete on fundraiser_translations
    for each row execute function fundraiser_translations_touch()`);
  await knex.raw('update fundraisers set title = title');

  await knex.raw(`create index fundraisers_list_created_idx on fundraisers (created_at desc, id desc) where ${LISTABLE}`);
  await knex.raw(`create index fundraisers_list_raised_idx on fundraisers (raised_cents desc, created_at desc) where ${LISTABLE}`);
  await knex.raw(`create index fundraisers_list_category_idx on fundraisers (category_id, created_at desc) where ${LISTABLE}`);
  await knex.raw(`create index fundraisers_list_geo_idx on fundraisers (location_lat, location_lng)
    where ${LISTABLE} and location_lat is not null and location_lng is not null`);
  await knex.raw(`create index fundraisers_list_search_idx on fundraisers using gin (search_vector) where ${LISTABLE}`);
  await knex.raw(`create index fundraisers_list_title_trgm_idx on fundraisers using gin (title gin_trgm_ops) where ${LISTABLE}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const i of ['created', 'raised', 'category', 'geo', 'search', 'title_trgm']) {
    await knex.raw(`drop index if exists fundraisers_list_${i}_idx`);
  }
  await knex.raw('drop trigger if exists fundraiser_translations_touch_trg on fundraiser_translations');
  await knex.raw('drop function if exists fundraiser_translations_touch()');
  await knex.raw('drop trigger if exists fundraisers_search_vector_trg on fundraisers');
  await knex.raw('drop function if exists fundraisers_search_vector()');
  await knex.raw('alter table fundraisers drop column if exists search_vector');
  await knex.raw('drop function if exists cf_html_text(text)');
  await knex.raw('drop function if exists cf_ts_config(text)');
}
