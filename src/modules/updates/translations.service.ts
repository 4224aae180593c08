import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { createTranslator, LOCALES, TranslatorError, type Locale, type Translator } from '../../integrations/translate';
import { recordAudit } from '../audit';
import type { FundraiserRow } from '../fundraisers';
import * as repo from './updates.repo';
import type { TranslationRow, UpdateRow } from './updates.repo';
import { cleanBody, cleanTitle } from './updates.text';

const iso = (v: Date | string) => new Date(v).toISOString();

export function toTranslation(t: TranslationRow) {
  return { lang: t.lang, title: t.title, body: t.body, source: t.source, outdated: Boolean(t.outdated), updated_at: iso(t.updated_at) };
}

function invalid(path: string, message: string): ApiError {
  return new ApiError(400, 'Validation failed', `${path}: ${message}`, { details: [{ path, message }] });
}

const unavailable = (why: string) => new ApiError(503, 'Translation service unavailable', why);

/** The tab: every live update newest first, its original text and its translation rows. */
export async function listTab(ctx: AppContext, f: FundraiserRow) {
  const rows = await repo.listLive(ctx.db, f.id, null);
  const byUpdate = new Map<string, TranslationRow[]>();
  for (const t of await repo.translationsOf(ctx.db, rows.map((r) => r.id))) byUpdate.set(t.update_id, [...(byUpdate.get(t.update_id) ?? []), t]);
  return {
    data: rows.map((r) => ({
      update_id: r.id,
      title: r.title,
      body: r.body,
      language: r.language,
      created_at: iso(r.created_at),
      translations: (byUpdate.get(r.id) ?? []).map(toTranslation),
    })),
  };
}

async function liveUpdate(db: AppContext['db'] | Knex.Transaction, f: FundraiserRow, updateId: string, forUpdate = false): Promise<UpdateRow> {
  const u = await repo.findLive(db, f.id, updateId, { forUpdate });
  if (!u) throw notFound('Update');
  return u;
}

export async function getOne(ctx: AppContext, f: FundraiserRow, updateId: string) {
  const u = await liveUpdate(ctx.db, f, updateId);
  return { data: { update_id: u.id, language: u.language, translations: (await repo.translationsOf(ctx.db, [u.id])).map(toTranslation) } };
}

function notOwnLanguage(u: UpdateRow, lang: Locale) {
  if (lang === u.language) throw invalid('params.lang', `the update is written in ${lang}; translations are for the other locales`);
}

/** A hand-edited translation (source human); it replaces whatever row `lang` had. */
export async function saveTranslation(
  ctx: AppContext,
  actor: Actor,
  f: FundraiserRow,
  updateId: string,
  lang: Locale,
  input: { title?: string | null; body: string },
) {
  const title = cleanTitle(input.title ?? null);
  const body = cleanBody(input.body);
  return ctx.db.transaction(async (trx) => {
    // The update's row lock orders this save against an edit and the machine-translation job.
    const u = await liveUpdate(trx, f, updateId, true);
    notOwnLanguage(u, lang);
    if (u.title !== null && title === null) throw invalid('body.title', 'the update has a title, so its translation needs one');
    const before = await repo.findTranslation(trx, u.id, lang);
    const row = await repo.upsertTranslation(trx, { update_id: u.id, lang, title: u.title === null ? null : title, body, source: 'human' });
    await recordAudit(trx, {
      actor_user_id: actor.userId,
      action: 'translation.saved',
      target_type: 'project_update',
      target_id: u.id,
      details: { fundraiser_id: f.id, lang, replaced: before ? { source: before.source, title: before.title, body: before.body } : null },
    });
    return { data: toTranslation(row) };
  });
}

/** Title and body of `u` in `target`; a title-less update stays title-less. */
export async function machineTranslate(translator: Translator, u: UpdateRow, target: Locale) {
  const [title, body] = await Promise.all([
    u.title === null ? Promise.resolve(null) : translator.translate(u.title, u.language, target),
    translator.translate(u.body, u.language, target),
  ]);
  return { title, body };
}

/** A fresh machine translation now; a hand-edited row is replaced only with `force`. */
export async function regenerate(ctx: AppContext, actor: Actor, f: FundraiserRow, updateId: string, lang: Locale, force: boolean) {
  const translator = createTranslator(ctx.config);
  if (!translator) throw unavailable('Machine translation is not configured');
  const u = await liveUpdate(ctx.db, f, updateId);
  notOwnLanguage(u, lang);
  const keepHuman = () =>
    new ApiError(409, 'Conflict', 'This translation was edited by hand; regenerate with force=1 to replace it', { code: 'HUMAN_TRANSLATION' });
  if (!force && (await repo.findTranslation(ctx.db, u.id, lang))?.source === 'human') throw keepHuman();
  let text: { title: string | null; body: string };
  try {
    text = await machineTranslate(translator, u, lang);
  } catch (err) {
    if (err instanceof TranslatorError) throw unavailable('The translation service did not answer; try again later');
    throw err;
  }
  return ctx.db.transaction(async (trx) => {
    const now = await liveUpdate(trx, f, updateId, true);
    if (now.title !== u.title || now.body !== u.body) throw new ApiError(409, 'Conflict', 'The update changed while it was being translated; try again');
    const before = await repo.findTranslation(trx, u.id, lang);
    if (!force && before?.source === 'human') throw keepHuman();
    const row = await repo.upsertTranslation(trx, { update_id: u.id, lang, title: text.title, body: text.body, source: 'machine' });
    await recordAudit(trx, {
      actor_user_id: actor.userId,
      action: 'translation.regenerated',
      target_type: 'project_update',
      target_id: u.id,
      details: { fundraiser_id: f.id, lang, force, replaced: before ? { source: before.source, title: before.title, body: before.body } : null },
    });
    return { data: toTranslation(row) };
  });
}

/**
 * Job: machine translations of an update into every other locale that has no row yet. Runs
 * outside a transaction (the calls take seconds); each row is written under the update's lock
 * only if the words are still those translated and no hand-made row arrived meanwhile.
 */
export async function translateUpdateJob(ctx: AppContext, updateId: string): Promise<void> {
  const translator = createTranslator(ctx.config);
  if (!translator) return;
  for (let round = 0; round < 3; round++) {
    const u = await repo.findById(ctx.db, updateId);
    if (!u || u.deleted_at) return;
    const have = new Set((await repo.translationsOf(ctx.db, [u.id])).map((t) => t.lang));
    let stale = false;
    for (const lang of LOCALES) {
      if (lang === u.language || have.has(lang)) continue;
      const text = await machineTranslate(translator, u, lang);
      stale = await ctx.db.transaction(async (trx) => {
        const now = await repo.findLive(trx, u.fundraiser_id, u.id, { forUpdate: true });
        if (!now) return true;
        if (now.title !== u.title || now.body !== u.body || now.language !== u.language) return true;
        if (await repo.findTranslation(trx, u.id, lang)) return false;
        await repo.upsertTranslation(trx, { update_id: u.id, lang, ...text, source: 'machine' });
        return false;
      });
      if (stale) break;
    }
    if (!stale) return;
  }
}
