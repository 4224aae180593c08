import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import { sha256Hex } from '../../infra/hash';
import { enqueue } from '../../infra/jobs';
import { eraseMailsTo, queueComposedMail, type Locale } from '../../integrations/mail';
import { recordAudit } from '../audit';
import type { PersonalDataPart } from '../define-module';
import { REMOVED } from './privacy.erasure';
import { guestRows, logErasure } from './privacy.erasure-log';
import { EXPORT_TASK } from './privacy.exports';
import { scrubExportFiles } from './privacy.export-files';
import { guestNeedles, sourceColumns } from './privacy.needles';
import { usable } from './privacy.replace';
import { scrubCopies } from './privacy.scrub';
import * as repo from './privacy.repo';

const LINK_HOURS = 24;
const ANSWER = 'If we hold data under this address, a confirmation link is on its way to it.';

type Parts = ReadonlyArray<{ module: string; part: PersonalDataPart }>;
export const GUEST_PLACEHOLDERS = { identifier: 'a guest', text: REMOVED };

/**
 * Pseudonymises every guest row under `email` and every copy of the guest (the erasure of a
 * confirmed request, and of a logged one carried out again after a restore), and logs it.
 */
export async function eraseGuestAddress(trx: Knex.Transaction, parts: Parts, email: string, opts: { reapply?: boolean } = {}): Promise<{ rows: number; copies: number }> {
  // The guest's name and notes under this address, and the rows themselves, read before the parts pseudonymise them.
  const needles = usable(await guestNeedles(trx, parts, email));
  const logged = await guestRows(trx, parts, email);
  let rows = 0;
  for (const { part } of parts) rows += (await part.eraseGuest?.(trx, email)) ?? 0;
  await eraseMailsTo(trx, email);
  const copies = await scrubCopies(trx, needles, GUEST_PLACEHOLDERS, sourceColumns(parts));
  if (!opts.reapply && Object.keys(logged).length) await logErasure(trx, { kind: 'guest', rows: logged, erased_at: new Date().toISOString() });
  return { rows, copies };
}

/** Always the same answer, so nobody learns which addresses gave. The mail proves the address is theirs. */
export async function createRequest(ctx: AppContext, email: string, kind: 'export' | 'erasure', locale: Locale) {
  const token = randomBytes(32).toString('base64url');
  const link = `${ctx.config.SITE_URL}/privacy/confirm?token=${token}`;
  await ctx.db.transaction(async (trx) => {
    await repo.insertRequest(trx, { token_hash: sha256Hex(token), kind, email, expires_at: new Date(Date.now() + LINK_HOURS * 3_600_000) });
    await queueComposedMail(trx, {
      to: email,
      template: 'privacy_request_confirm',
      locale,
      subject: kind === 'export' ? 'Confirm your data export request' : 'Confirm your data erasure request',
      paragraphs: [
        kind === 'export'
          ? 'Someone (we hope you) asked for a copy of the data we hold about gifts made with this address.'
          : 'Someone (we hope you) asked us to erase the personal data of gifts made with this address. The gifts stay, anonymous.',
        `Confirm within ${LINK_HOURS} hours with the link below; the link works once. If it was not you, ignore this mail.`,
      ],
      action: { label: 'Confirm', url: link },
    });
  });
  return { message: ANSWER };
}

export async function confirmRequest(ctx: AppContext, parts: Parts, token: string) {
  // Others' export files quoting the guest are rewritten before the transaction (storage is a network call).
  const open = await repo.openRequest(ctx.db, sha256Hex(token));
  const files = open?.kind === 'erasure' && open.email ? await scrubExportFiles(ctx, usable(await guestNeedles(ctx.db, parts, open.email)), GUEST_PLACEHOLDERS, null) : 0;
  return ctx.db.transaction(async (trx) => {
    const req = await repo.claimRequest(trx, sha256Hex(token));
    if (!req || !req.email) throw new ApiError(400, 'Bad request', 'This link is unknown, used or expired', { code: 'PRIVACY_TOKEN_INVALID' });
    if (req.kind === 'export') {
      const ex = await repo.insertExport(trx, { user_id: null, request_id: req.id });
      await enqueue(trx, EXPORT_TASK, { export_id: ex.id }, { maxAttempts: 3 });
      // The address stays on the request until the export's mail is queued.
      await repo.finishRequest(trx, req.id, 'pending', true);
      await recordAudit(trx, { actor_user_id: null, action: 'privacy.guest_export_requested', target_type: 'privacy_export', target_id: ex.id });
      return { data: { kind: 'export' as const, status: 'pending' } };
    }
    const { rows, copies } = await eraseGuestAddress(trx, parts, req.email);
    await repo.finishRequest(trx, req.id, 'done', false);
    await recordAudit(trx, { actor_user_id: null, action: 'privacy.guest_erased', target_type: 'privacy_request', target_id: req.id, details: { rows, copies, export_files: files } });
    return { data: { kind: 'erasure' as const, status: 'done' } };
  });
}
