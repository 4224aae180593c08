import type { z } from 'zod';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { recordAudit } from '../audit';
import { plainText } from '../../infra/plain-text';
import { findByIdForUpdate, removeMediaUrls } from '../fundraisers';
import { campaignUploads, forgetUploads } from '../media';
import * as repo from './dmca.repo';
import type { noticeBody, takedownBody } from './dmca.schemas';

function invalid(path: string, message: string): ApiError {
  return new ApiError(400, 'Validation failed', `${path}: ${message}`, { details: [{ path, message }] });
}

/** Plain text (markup removed, whitespace runs collapsed) of 1..max characters, else 400. */
function text(field: string, raw: string, max: number): string {
  const t = plainText(raw)?.replace(/[ \t]+/g, ' ').trim() ?? null;
  if (t === null) throw invalid(`body.${field}`, 'too many levels of HTML entity encoding');
  if (!t) throw invalid(`body.${field}`, 'must not be empty');
  if (t.length > max) throw invalid(`body.${field}`, `must have at most ${max} characters`);
  return t;
}

export async function receiveNotice(ctx: AppContext, body: z.infer<typeof noticeBody>): Promise<{ id: string; status: 'received' }> {
  const row = await repo.insertNotice(ctx.db, {
    complainant_name: text('complainant_name', body.complainant_name, 200),
    complainant_email: body.complainant_email.toLowerCase(),
    work_description: text('work_description', body.work_description, 5000),
    infringing_urls: [...new Set(body.infringing_urls)],
    signature: text('signature', body.signature, 200),
  });
  return { id: row.id, status: 'received' };
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const takedownRead = (t: repo.TakedownRow) => ({ ...t, created_at: new Date(t.created_at).toISOString() });

export async function listNotices(ctx: AppContext, q: { limit: number; offset: number; status?: 'received' | 'actioned' }) {
  const { rows, total } = await repo.listNotices(ctx.db, q);
  const takedowns = await repo.takedownsOf(ctx.db, rows.map((r) => r.id));
  return {
    data: rows.map((r) => ({
      ...r,
      created_at: new Date(r.created_at).toISOString(),
      actioned_at: iso(r.actioned_at),
      takedowns: takedowns.filter((t) => t.notice_id === r.id).map(takedownRead),
    })),
    pagination: { limit: q.limit, offset: q.offset, total },
  };
}

/**
 * Takes named media off one campaign under a notice: the campaign's uploads (by id or URL) are
 * forgotten and their files removed, and every named URL leaves the campaign's cover, gallery
 * and video. Anything named that the campaign does not show or hold is a 400 and nothing is
 * removed. Recorded per URL, in the audit log, and the notice becomes `actioned`.
 */
export async function takeDown(ctx: AppContext, actor: Actor, noticeId: string, body: z.infer<typeof takedownBody>) {
  const ids = [...new Set(body.media_ids ?? [])];
  const urls = [...new Set(body.urls ?? [])];
  const { removed, keys } = await ctx.db.transaction(async (trx) => {
    if (!(await repo.noticeForUpdate(trx, noticeId))) throw notFound('DMCA notice');
    const f = await findByIdForUpdate(trx, body.fundraiser_id);
    if (!f || f.deleted_at) throw notFound('Fundraiser');
    const uploads = await campaignUploads(ctx, trx, f.id, ids, urls);
    const missingIds = ids.filter((id) => !uploads.some((u) => u.id === id));
    if (missingIds.length) throw invalid('body.media_ids', `not media of this campaign: ${missingIds.join(', ')}`);
    const shown = new Set([f.cover_image, f.video_url, ...(f.images ?? [])].filter((u): u is string => Boolean(u)));
    const missingUrls = urls.filter((u) => !shown.has(u) && !uploads.some((up) => up.url === u));
    if (missingUrls.length) throw invalid('body.urls', `not media of this campaign: ${missingUrls.join(', ')}`);

    const gone = new Set([...urls, ...uploads.map((u) => u.url)]);
    await removeMediaUrls(trx, f, gone);
    await forgetUploads(trx, uploads.map((u) => u.id));
    const rows = await repo.insertTakedowns(
      trx,
      [...gone].map((url) => ({ notice_id: noticeId, fundraiser_id: f.id, staff_user_id: actor.userId, url, media_id: uploads.find((u) => u.url === url)?.id ?? null })),
    );
    await repo.markActioned(trx, noticeId);
    await recordAudit(trx, { actor_user_id: actor.userId, action: 'dmca.takedown', target_type: 'fundraiser', target_id: f.id, details: { notice_id: noticeId, urls: [...gone] } });
    // Files of the service's own store behind the removed URLs: uploads, and crops or AI covers named by URL.
    const fileKeys = new Set([...uploads.map((u) => u.storage_key), ...[...gone].map((u) => ctx.storage.keyOf(u)).filter((k): k is string => k !== null)]);
    return { removed: rows, keys: [...fileKeys] };
  });
  // After commit: a rollback must not lose files the campaign still shows. A failed removal is logged, not fatal.
  for (const key of keys) await ctx.storage.remove(key).catch((err: Error) => ctx.log.warn({ key, err: err.message }, 'DMCA take-down: file removal failed'));
  return { notice_id: noticeId, fundraiser_id: body.fundraiser_id, status: 'actioned' as const, removed: removed.map(takedownRead) };
}
