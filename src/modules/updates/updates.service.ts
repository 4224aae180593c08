import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { emit } from '../../events';
import type { Actor } from '../../http/actor';
import { notFound } from '../../http/errors';
import { enqueue } from '../../infra/jobs';
import { detectLocale, isLocale, type Locale } from '../../integrations/translate';
import { recordAudit } from '../audit';
import { canRead, findById, type FundraiserRow } from '../fundraisers';
import { withdrawalsFor } from '../payouts';
import * as repo from './updates.repo';
import type { TranslationRow, UpdateRow } from './updates.repo';
import { cleanBody, cleanTitle, wordsOf } from './updates.text';

/** Queue of machine-translation jobs, one per new or reworded update (handler: updates.jobs.ts). */
export const UPDATE_TRANSLATION_QUEUE = 'update-translations';

const iso = (v: Date | string | null) => (v ? new Date(v).toISOString() : null);

export function toUpdate(r: UpdateRow, overlay?: TranslationRow) {
  // A translation overlays the words only where the update still has the text it was made from.
  const t = overlay && overlay.lang !== r.language ? overlay : undefined;
  return {
    id: r.id,
    fundraiser_id: r.fundraiser_id,
    type: 'update' as const,
    title: t ? (r.title === null ? null : t.title ?? r.title) : r.title,
    body: t ? t.body : r.body,
    language: r.language,
    like_count: Number(r.like_count),
    liked_by_me: Boolean(r.liked_by_me),
    created_at: iso(r.created_at)!,
    edited_at: iso(r.edited_at),
  };
}

/** The language a campaign's text falls back to when detection cannot tell. */
const fallbackOf = (f: FundraiserRow): Locale => (isLocale(f.source_language) ? f.source_language : 'en');

async function queueTranslations(trx: Knex.Transaction, updateId: string) {
  await enqueue(trx, UPDATE_TRANSLATION_QUEUE, { update_id: updateId }, { maxAttempts: 8 });
}

/**
 * The public feed: live updates and the campaign's withdrawals, newest first. A campaign the
 * caller cannot read (unknown, private, unpublished, deleted) answers an empty feed, not 404.
 */
export async function listFeed(ctx: AppContext, actor: Actor | null, fundraiserId: string, lang?: Locale) {
  const f = await findById(ctx.db, fundraiserId);
  if (!f || f.deleted_at || !canRead(f, actor)) return [];
  const [rows, withdrawals] = await Promise.all([repo.listLive(ctx.db, f.id, actor?.userId ?? null), withdrawalsFor(ctx.db, f.id)]);
  const overlays = new Map(lang ? (await repo.translationsOf(ctx.db, rows.map((r) => r.id), lang)).map((t) => [t.update_id, t]) : []);
  const items = [
    ...rows.map((r) => toUpdate(r, overlays.get(r.id))),
    ...withdrawals.map((w) => ({ id: w.id, fundraiser_id: w.fundraiser_id, type: 'withdrawal' as const, payout_id: w.payout_id, amount_cents: w.amount_cents, currency: w.currency, status: w.status, arrival_date: w.arrival_date, created_at: w.created_at })),
  ];
  return items.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
}

/** `f` passed the ownsProject policy. */
export async function createUpdate(ctx: AppContext, actor: Actor, f: FundraiserRow, input: { title?: string | null; body: string }) {
  const title = cleanTitle(input.title ?? null);
  const body = cleanBody(input.body);
  const language = detectLocale(wordsOf({ title, body }), fallbackOf(f));
  const row = await ctx.db.transaction(async (trx) => {
    const u = await repo.insert(trx, { fundraiser_id: f.id, author_user_id: actor.userId, title, body, language });
    await emit(trx, 'update.posted', { update_id: u.id, fundraiser_id: f.id, author_user_id: actor.userId, created_at: iso(u.created_at)! });
    await queueTranslations(trx, u.id);
    return u;
  });
  return toUpdate(row);
}

/** An edit; when the words change the language is detected again and translations are redone or flagged. */
export async function editUpdate(ctx: AppContext, actor: Actor, f: FundraiserRow, updateId: string, input: { title?: string | null; body?: string }) {
  // Clean outside the transaction: a 400 should not hold a row lock.
  const newTitle = input.title === undefined ? undefined : cleanTitle(input.title);
  const newBody = input.body === undefined ? undefined : cleanBody(input.body);
  const row = await ctx.db.transaction(async (trx) => {
    const old = await repo.findLive(trx, f.id, updateId, { forUpdate: true });
    if (!old) throw notFound('Update');
    const title = newTitle === undefined ? old.title : newTitle;
    const body = newBody ?? old.body;
    const fields = [...(title !== old.title ? ['title'] : []), ...(body !== old.body ? ['body'] : [])];
    let next = old;
    if (fields.length > 0) {
      const language = detectLocale(wordsOf({ title, body }), fallbackOf(f));
      next = await repo.edit(trx, old.id, { title, body, language });
      await repo.invalidateTranslations(trx, old.id);
      await queueTranslations(trx, old.id);
    }
    await recordAudit(trx, {
      actor_user_id: actor.userId,
      action: 'update.edited',
      target_type: 'project_update',
      target_id: old.id,
      details: { fundraiser_id: f.id, fields, previous: { title: old.title, body: old.body, language: old.language }, language: next.language },
    });
    return next;
  });
  return toUpdate({ ...row, liked_by_me: await repo.likedBy(ctx.db, row.id, actor.userId) });
}

/** Soft delete (withdraw); a withdrawn or unknown update is 404. */
export async function withdrawUpdate(ctx: AppContext, actor: Actor, f: FundraiserRow, updateId: string): Promise<void> {
  await ctx.db.transaction(async (trx) => {
    const old = await repo.findLive(trx, f.id, updateId, { forUpdate: true });
    if (!old) throw notFound('Update');
    await repo.withdraw(trx, old.id);
    await recordAudit(trx, { actor_user_id: actor.userId, action: 'update.withdrawn', target_type: 'project_update', target_id: old.id, details: { fundraiser_id: f.id } });
  });
}

/** Like or unlike a live update of a campaign the caller may read; idempotent. */
export async function setLike(ctx: AppContext, actor: Actor, fundraiserId: string, updateId: string, liked: boolean) {
  const f = await findById(ctx.db, fundraiserId);
  if (!f || f.deleted_at || !canRead(f, actor)) throw notFound('Update');
  const like_count = await ctx.db.transaction(async (trx) => {
    const u = await repo.findLive(trx, f.id, updateId);
    if (!u) throw notFound('Update');
    return repo.setLike(trx, u.id, actor.userId, liked);
  });
  return { like_count, liked };
}
