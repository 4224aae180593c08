import jwt from 'jsonwebtoken';
import type { Request } from 'express';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { forgetAnswersOf } from '../../http/idempotency';
import { enqueue } from '../../infra/jobs';
import { eraseMailsTo } from '../../integrations/mail';
import { revokeAllForUser } from '../api-keys';
import { recordAudit } from '../audit';
import type { ErasureBlock, PersonalDataPart } from '../define-module';
import { globalSignOut } from '../idp';
import { disableAllForUser } from '../webhook-endpoints';
import { scrubExportFiles } from './privacy.export-files';
import { logErasure } from './privacy.erasure-log';
import { accountNeedles, sourceColumns } from './privacy.needles';
import { accountForPrivacy } from './privacy.reads';
import { usable } from './privacy.replace';
import { scrubCopies } from './privacy.scrub';
import * as repo from './privacy.repo';

export const ERASE_TASK = 'privacy.erase';
export const REMOVE_FILES_TASK = 'privacy.remove-files';
export const IDP_DELETE_TASK = 'privacy.idp-delete';
export const GRACE_DAYS = 14;
const REAUTH_MINUTES = 15;
const DAY_MS = 86_400_000;
/** What replaces an erased account's name, address or slug where a copy of it stays in text. */
export const ERASED = 'a former member';
/** What replaces an erased person's own words where a copy of them stays. */
export const REMOVED = '[removed]';

type Parts = ReadonlyArray<{ module: string; part: PersonalDataPart }>;

/** Every part's reasons the account cannot be erased now (empty: it can). */
export async function erasureBlocks(ctx: AppContext, parts: Parts, userId: string): Promise<ErasureBlock[]> {
  const out: ErasureBlock[] = [];
  for (const { part } of parts) if (part.blockers) out.push(...(await part.blockers(ctx, userId)));
  return out;
}

/** Signed in within 15 minutes by cookie (the ID token's auth_time), or the password again. */
async function reauthenticated(ctx: AppContext, req: Request, actor: Actor, password: string | undefined): Promise<boolean> {
  if (password !== undefined) {
    try {
      await ctx.idp.initiateAuth(actor.email, password);
      return true;
    } catch (err) {
      if ((err as { unreachable?: boolean }).unreachable) throw new ApiError(503, 'Service unavailable', 'The identity provider is unreachable; try again shortly');
      return false;
    }
  }
  if (actor.credential !== 'session') return false;
  const claims = jwt.decode(String((req.cookies as Record<string, unknown> | undefined)?.id_token ?? '')) as { auth_time?: number } | null;
  return !!claims?.auth_time && Date.now() / 1000 - claims.auth_time <= REAUTH_MINUTES * 60;
}

export async function requestErasure(ctx: AppContext, parts: Parts, req: Request, actor: Actor, password: string | undefined) {
  if (!(await reauthenticated(ctx, req, actor, password))) {
    throw new ApiError(403, 'Forbidden', `Sign in again (within ${REAUTH_MINUTES} minutes) or send your password to confirm`, { code: 'REAUTHENTICATION_REQUIRED' });
  }
  const reasons = await erasureBlocks(ctx, parts, actor.userId);
  if (reasons.length) throw new ApiError(409, 'Conflict', 'The account cannot be erased yet', { code: 'ERASURE_BLOCKED', reasons });
  const scheduledFor = await ctx.db.transaction(async (trx) => {
    const existing = await repo.scheduledErasure(trx, actor.userId);
    if (existing) return existing.scheduled_for;
    const row = await repo.insertErasure(trx, actor.userId, new Date(Date.now() + GRACE_DAYS * DAY_MS));
    // The immediate effects (docs/decisions/0009-erasure-pseudonymises-money.md); sessions end below, after commit (the provider is a network call).
    await revokeAllForUser(trx, actor.userId);
    await disableAllForUser(trx, actor.userId);
    await enqueue(trx, ERASE_TASK, { user_id: actor.userId }, { runAt: row.scheduled_for, jobKey: `${ERASE_TASK}:${actor.userId}`, maxAttempts: 10 });
    await recordAudit(trx, { actor_user_id: actor.userId, action: 'privacy.erasure_requested', target_type: 'user', target_id: actor.userId, details: { scheduled_for: row.scheduled_for.toISOString() } });
    return row.scheduled_for;
  });
  await globalSignOut(ctx, actor.userId);
  return { data: { scheduled_for: scheduledFor.toISOString() } };
}

export async function cancelErasure(ctx: AppContext, userId: string) {
  const done = await ctx.db.transaction(async (trx) => {
    const ok = await repo.cancelErasure(trx, userId);
    if (ok) await recordAudit(trx, { actor_user_id: userId, action: 'privacy.erasure_cancelled', target_type: 'user', target_id: userId });
    return ok;
  });
  if (!done) throw notFound('Scheduled erasure');
  return { data: { status: 'cancelled' as const } };
}

export async function erasureStatus(ctx: AppContext, userId: string) {
  const row = await repo.scheduledErasure(ctx.db, userId);
  if (!row) throw notFound('Scheduled erasure');
  return { data: { scheduled_for: row.scheduled_for.toISOString() } };
}

/**
 * Carries out a scheduled erasure (when due, or at once with `now`): every module's part in one
 * transaction with the outbox's copies of mails; files and the provider's account are removed by
 * jobs queued in it, after commit. 'blocked' leaves it scheduled and tries again a day later.
 */
/**
 * `reapply`: the erasure was carried out before and a restore undid it (the erasure log's): what
 * blocked it then was settled then, and it is logged already.
 */
interface EraseOptions { reapply?: boolean }

export async function runErasure(ctx: AppContext, parts: Parts, userId: string, now = false, opts: EraseOptions = {}): Promise<'done' | 'not_due' | 'blocked'> {
  const account = await accountForPrivacy(ctx.db, userId);
  if (!account) return 'not_due';
  const reasons = opts.reapply ? [] : await erasureBlocks(ctx, parts, userId);
  const due = await repo.scheduledErasure(ctx.db, userId);
  // What the account is known by, besides what its parts hold (read in the transaction too, before they erase it).
  const own = [account.email, account.name, account.profile_slug].filter((x): x is string => !!x).map((value) => ({ value, kind: 'identifier' as const }));
  const placeholders = { identifier: ERASED, text: REMOVED };
  let files = 0;
  if (!reasons.length && due && (now || due.scheduled_for.getTime() <= Date.now())) {
    files = await scrubExportFiles(ctx, usable([...own, ...(await accountNeedles(ctx.db, parts, userId))], [userId]), placeholders, userId);
  }
  return ctx.db.transaction(async (trx) => {
    const row = await repo.claimErasure(trx, userId, now);
    if (!row) return 'not_due';
    if (reasons.length) {
      await enqueue(trx, ERASE_TASK, { user_id: userId }, { runAt: new Date(Date.now() + DAY_MS), jobKey: `${ERASE_TASK}:${userId}` });
      await recordAudit(trx, { actor_user_id: null, action: 'privacy.erasure_blocked', target_type: 'user', target_id: userId, details: { codes: reasons.map((r) => r.code) } });
      return 'blocked';
    }
    const erased = { userId, email: account.email, name: account.name, slug: account.profile_slug };
    // What the account is known by and wrote, read before the parts erase their rows.
    const needles = usable([...own, ...(await accountNeedles(trx, parts, userId))], [userId]);
    const keys: string[] = [];
    for (const { part } of parts) {
      const out = await part.erase?.(trx, erased);
      if (out) keys.push(...out.storageKeys);
    }
    keys.push(...(await repo.exportKeysOf(trx, userId)));
    await eraseMailsTo(trx, account.email);
    // Stored answers for Idempotency-Key replays (24 h) echo what the account sent: the owner deletes them.
    await forgetAnswersOf(trx, userId);
    // Every copy held for someone else (their mails, notifications, webhook payloads, the event log...).
    const copies = await scrubCopies(trx, needles, placeholders, sourceColumns(parts));
    await repo.markErasureDone(trx, row.id);
    if (!opts.reapply) await logErasure(trx, { kind: 'account', user_id: userId, erased_at: new Date().toISOString() });
    if (keys.length) await enqueue(trx, REMOVE_FILES_TASK, { keys }, { maxAttempts: 10 });
    const sub = ctx.idp.kind === 'local' ? userId : account.idp_subject;
    if (sub) await enqueue(trx, IDP_DELETE_TASK, { sub }, { maxAttempts: 10 });
    await recordAudit(trx, { actor_user_id: null, action: 'privacy.erased', target_type: 'user', target_id: userId, details: { files: keys.length, copies, export_files: files, reapplied: !!opts.reapply } });
    return 'done';
  });
}

export async function removeFiles(ctx: AppContext, keys: string[]): Promise<void> {
  for (const k of keys) await ctx.storage.remove(k);
}

/** An operator's erasure (`npm run admin -- erase <email> --now`): scheduled for now when none is, then carried out. */
export async function eraseNow(ctx: AppContext, parts: Parts, userId: string, opts: EraseOptions = {}): Promise<'done' | 'not_due' | 'blocked'> {
  await ctx.db.transaction(async (trx) => {
    if (await repo.scheduledErasure(trx, userId)) return;
    await repo.insertErasure(trx, userId, new Date());
    await revokeAllForUser(trx, userId);
    await disableAllForUser(trx, userId);
    await recordAudit(trx, { actor_user_id: null, action: 'privacy.erasure_requested', target_type: 'user', target_id: userId, details: { by: opts.reapply ? 'erasure-log' : 'operator' } });
  });
  return runErasure(ctx, parts, userId, true, opts);
}
