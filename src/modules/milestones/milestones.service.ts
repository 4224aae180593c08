import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { enqueue } from '../../infra/jobs';
import { createTranslator, detectLocale, isLocale, LOCALES, type Locale } from '../../integrations/translate';
import { readable, type FundraiserRow } from '../fundraisers';
import { cleanTitle } from '../updates';
import * as repo from './milestones.repo';
import type { MilestoneRow, MilestoneTranslationRow } from './milestones.repo';

export const MILESTONE_TRANSLATION_QUEUE = 'milestone-translations';

type Status = MilestoneRow['status'];
export interface MilestoneInput {
  title?: string;
  description?: string | null;
  due_date?: string | null;
  amount_cents?: number | null;
  status?: Status;
}

const iso = (v: Date | string | null) => (v ? new Date(v).toISOString() : null);

export function toMilestone(r: MilestoneRow, overlay?: MilestoneTranslationRow) {
  const t = overlay && overlay.lang !== r.language ? overlay : undefined;
  return {
    id: r.id,
    fundraiser_id: r.fundraiser_id,
    title: t ? t.title : r.title,
    description: t && r.description !== null ? t.description : r.description,
    due_date: r.due_date,
    amount_cents: r.amount_cents === null ? null : Number(r.amount_cents),
    status: r.status,
    completed_at: iso(r.completed_at),
    created_at: iso(r.created_at)!,
  };
}

/** Milestones of a campaign the caller may read (404 otherwise), by due date then creation. */
export async function list(ctx: AppContext, actor: Actor | null, fundraiserId: string, lang?: Locale) {
  const f = await readable(ctx, actor, { id: fundraiserId });
  if (f.deleted_at) throw notFound('Fundraiser');
  const rows = await repo.listFor(ctx.db, f.id);
  const overlays = new Map(lang ? (await repo.translationsOf(ctx.db, rows.map((r) => r.id), lang)).map((t) => [t.milestone_id, t]) : []);
  return rows.map((r) => toMilestone(r, overlays.get(r.id)));
}

function requireProject(f: FundraiserRow) {
  if (!f.is_project) throw new ApiError(400, 'Bad request', 'Milestones belong to project campaigns', { code: 'NOT_A_PROJECT' });
}

function cleanText(input: MilestoneInput) {
  const out: Record<string, unknown> = {};
  if (input.title !== undefined) {
    const title = cleanTitle(input.title);
    if (title === null) throw new ApiError(400, 'Validation failed', 'body.title: must not be empty', { details: [{ path: 'body.title', message: 'must not be empty' }] });
    out.title = title;
  }
  if (input.description !== undefined) out.description = cleanTitle(input.description, 'body.description');
  for (const k of ['due_date', 'amount_cents', 'status'] as const) if (input[k] !== undefined) out[k] = input[k];
  return out;
}

const languageOf = (f: FundraiserRow, title: string, description: string | null) =>
  detectLocale(description ? `${title}\n${description}` : title, isLocale(f.source_language) ? f.source_language : 'en');

const queueTranslations = (trx: Knex.Transaction, id: string) => enqueue(trx, MILESTONE_TRANSLATION_QUEUE, { milestone_id: id }, { maxAttempts: 8 });

/** `f` passed the ownsProject policy. */
export async function create(ctx: AppContext, f: FundraiserRow, input: MilestoneInput) {
  requireProject(f);
  const fields = cleanText(input);
  const status = (fields.status as Status | undefined) ?? 'planned';
  const id = await ctx.db.transaction(async (trx) => {
    const newId = await repo.insert(trx, {
      ...fields,
      fundraiser_id: f.id,
      status,
      completed_at: status === 'done' ? trx.fn.now() : null,
      language: languageOf(f, fields.title as string, (fields.description as string | null | undefined) ?? null),
    });
    await queueTranslations(trx, newId);
    return newId;
  });
  return toMilestone((await repo.findById(ctx.db, id))!);
}

export async function edit(ctx: AppContext, f: FundraiserRow, milestoneId: string, input: MilestoneInput) {
  const fields = cleanText(input);
  await ctx.db.transaction(async (trx) => {
    const old = await repo.findOne(trx, f.id, milestoneId, true);
    if (!old) throw notFound('Milestone');
    const patch: Record<string, unknown> = { ...fields };
    if (fields.status !== undefined && fields.status !== old.status) patch.completed_at = fields.status === 'done' ? trx.fn.now() : null;
    const title = (fields.title as string | undefined) ?? old.title;
    const description = fields.description === undefined ? old.description : (fields.description as string | null);
    if (title !== old.title || description !== old.description) {
      patch.language = languageOf(f, title, description);
      await repo.dropMachineTranslations(trx, old.id);
      await queueTranslations(trx, old.id);
    }
    await repo.update(trx, old.id, patch);
  });
  return toMilestone((await repo.findById(ctx.db, milestoneId))!);
}

export async function remove(ctx: AppContext, f: FundraiserRow, milestoneId: string): Promise<void> {
  await ctx.db.transaction(async (trx) => {
    const old = await repo.findOne(trx, f.id, milestoneId, true);
    if (!old) throw notFound('Milestone');
    await repo.remove(trx, old.id);
  });
}

/** Job: machine translations into every other locale without a row; written only while the words are unchanged. */
export async function translateMilestoneJob(ctx: AppContext, milestoneId: string): Promise<void> {
  const translator = createTranslator(ctx.config);
  if (!translator) return;
  const m = await repo.findById(ctx.db, milestoneId);
  if (!m) return;
  const have = new Set((await repo.translationsOf(ctx.db, [m.id])).map((t) => t.lang));
  for (const lang of LOCALES) {
    if (lang === m.language || have.has(lang)) continue;
    const [title, description] = await Promise.all([
      translator.translate(m.title, m.language, lang),
      m.description === null ? Promise.resolve(null) : translator.translate(m.description, m.language, lang),
    ]);
    const current = await ctx.db.transaction(async (trx) => {
      const now = await repo.findOne(trx, m.fundraiser_id, m.id, true);
      if (!now || now.title !== m.title || now.description !== m.description) return false;
      await repo.insertMachineTranslation(trx, { milestone_id: m.id, lang, title, description });
      return true;
    });
    // Reworded meanwhile: the edit queued a fresh job for the new words.
    if (!current) return;
  }
}
