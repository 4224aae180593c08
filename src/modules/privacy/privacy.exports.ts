import type { AppContext } from '../../context';
import { ApiError, notFound } from '../../http/errors';
import { enqueue } from '../../infra/jobs';
import { queueComposedMail, toLocale } from '../../integrations/mail';
import { recordAudit } from '../audit';
import type { PersonalDataPart } from '../define-module';
import { REMOVE_FILES_TASK } from './privacy.erasure';
import { downloadUrl, EXPORT_LINK_DAYS, exportLinkToken, exportOfToken } from './privacy.links';
import { accountForPrivacy } from './privacy.reads';
import * as repo from './privacy.repo';

export const EXPORT_TASK = 'privacy.export';
/** One running and three a day per account (docs/privacy/README.md). */
const DAILY_EXPORTS = 3;
const DAY_MS = 86_400_000;

type Parts = ReadonlyArray<{ module: string; part: PersonalDataPart }>;

export async function requestExport(ctx: AppContext, userId: string) {
  const row = await ctx.db.transaction(async (trx) => {
    const c = await repo.exportCounts(trx, userId);
    if (c.running > 0) throw new ApiError(429, 'Too many requests', 'An export of your data is already being prepared', { code: 'EXPORT_RUNNING' });
    if (c.today >= DAILY_EXPORTS) throw new ApiError(429, 'Too many requests', `At most ${DAILY_EXPORTS} exports a day`, { code: 'EXPORT_DAILY_LIMIT' });
    const r = await repo.insertExport(trx, { user_id: userId });
    await enqueue(trx, EXPORT_TASK, { export_id: r.id }, { maxAttempts: 3 });
    await recordAudit(trx, { actor_user_id: userId, action: 'privacy.export_requested', target_type: 'privacy_export', target_id: r.id });
    return r;
  });
  return { data: { id: row.id, status: 'pending' as const, created_at: row.created_at.toISOString() } };
}

export async function exportStatus(ctx: AppContext, userId: string, id: string) {
  const row = await repo.findExport(ctx.db, id);
  if (!row || row.user_id !== userId) throw notFound('Export');
  const expired = row.status === 'expired' || (row.status === 'ready' && row.expires_at !== null && row.expires_at.getTime() <= Date.now());
  const status = expired ? 'expired' : row.status;
  const url = status === 'ready' && row.expires_at ? downloadUrl(ctx.config.BASE_URL, row.id, await exportLinkToken(ctx.db, row.id, row.expires_at)) : null;
  return { data: { id: row.id, status, download_url: url, expires_at: row.expires_at?.toISOString() ?? null } };
}

/** The JSON document: each module's part under its own keys, in module-list order. */
export async function exportDocument(ctx: AppContext, parts: Parts, who: { userId: string } | { email: string }): Promise<Record<string, unknown>> {
  const doc: Record<string, unknown> = { format: 'crowdfunding-api.personal-data.v1', generated_at: new Date().toISOString() };
  for (const { part } of parts) {
    const got = 'userId' in who ? await part.export?.(ctx.db, who.userId) : await part.exportGuest?.(ctx.db, who.email);
    if (!got) continue;
    for (const [k, v] of Object.entries(got)) {
      if (k in doc) throw new Error(`two personal-data parts export the key ${k}`);
      doc[k] = v;
    }
  }
  return doc;
}

/** The export job: builds the document, stores it, marks it ready and mails the link (claim, write, confirm). */
export async function buildExport(ctx: AppContext, parts: Parts, exportId: string): Promise<void> {
  const row = await repo.findExport(ctx.db, exportId);
  if (!row || row.status !== 'pending') return;
  const request = row.request_id ? await repo.findRequest(ctx.db, row.request_id) : undefined;
  const account = row.user_id ? await accountForPrivacy(ctx.db, row.user_id) : undefined;
  const to = account?.email ?? request?.email;
  if (!to) {
    await repo.markExportFailed(ctx.db, exportId);
    return;
  }
  const doc = await exportDocument(ctx, parts, row.user_id ? { userId: row.user_id } : { email: to });
  const key = `privacy-exports/${row.user_id ?? 'guest'}/${exportId}.json`;
  const body = Buffer.from(JSON.stringify(doc, null, 1));
  await ctx.storage.put(key, body, { contentType: 'application/json', size: body.length });
  const expiresAt = new Date(Date.now() + EXPORT_LINK_DAYS * DAY_MS);
  const url = downloadUrl(ctx.config.BASE_URL, exportId, await exportLinkToken(ctx.db, exportId, expiresAt));
  await ctx.db.transaction(async (trx) => {
    await repo.markExportReady(trx, exportId, key, expiresAt);
    await queueComposedMail(trx, {
      to,
      template: 'privacy_export_ready',
      locale: toLocale(account?.locale),
      subject: 'Your data export is ready',
      paragraphs: [
        'The copy of the personal data we hold about you, which you asked for, is ready as one JSON file.',
        `The link works for ${EXPORT_LINK_DAYS} days.`,
      ],
      action: { label: 'Download your data', url },
    });
    if (request) await repo.forgetRequestEmail(trx, request.id);
    await recordAudit(trx, { actor_user_id: row.user_id, action: 'privacy.export_ready', target_type: 'privacy_export', target_id: exportId, details: { bytes: body.length } });
  });
}

export async function failExport(ctx: AppContext, exportId: string): Promise<void> {
  await repo.markExportFailed(ctx.db, exportId);
}

/** The file behind a signed link (404 for a bad, expired or erased one). */
export async function openExport(ctx: AppContext, id: string, token: string) {
  const named = await exportOfToken(ctx.db, token);
  if (named !== id) throw notFound('Export');
  const row = await repo.findExport(ctx.db, id);
  if (!row || row.status !== 'ready' || !row.storage_key) throw notFound('Export');
  const obj = await ctx.storage.open(row.storage_key);
  if (!obj) throw notFound('Export');
  return obj;
}

/**
 * The prune's step (maintenance.prune): exports past their 7-day link are marked 'expired' and
 * their files removed by a job queued in the same transaction (storage is a network call, so it
 * runs after commit and retries). Answers how many expired.
 */
export async function expireExports(ctx: AppContext): Promise<number> {
  return ctx.db.transaction(async (trx) => {
    const keys = await repo.expireDueExports(trx);
    if (keys.length) await enqueue(trx, REMOVE_FILES_TASK, { keys }, { maxAttempts: 10 });
    return keys.length;
  });
}
