import type { AppContext } from '../../context';
import { sha256Hex } from '../../infra/hash';
import { lockVerificationToken, markVerificationTokenUsed } from '../verification';
import * as accounts from './accounts.repo';

export type VerificationOutcome = 'success' | 'invalid' | 'failed' | 'contact_taken' | 'error';

/**
 * Follows an emailed link: the verification module issued it and keeps its single-use token; the
 * account it verifies (login or private contact address) is this module's. Every outcome but
 * `error` is decided here; unexpected failures become `error`.
 */
export async function verifyEmailLink(ctx: AppContext, token: string | undefined): Promise<VerificationOutcome> {
  if (!token) return 'invalid';
  try {
    return await ctx.db.transaction(async (trx) => {
      const row = await lockVerificationToken(trx, sha256Hex(token));
      if (!row || row.used_at || row.expires_at.getTime() <= Date.now()) return 'failed';
      const user = await accounts.accountForVerification(trx, row.user_id);
      if (!user) return 'failed';
      if (row.kind === 'email') {
        if (!(await accounts.markEmailVerified(trx, user.id, row.email))) return 'failed';
      } else {
        if (await accounts.privateContactTakenByOther(trx, user.id, row.email)) return 'contact_taken';
        if (!(await accounts.markPrivateContactVerified(trx, user.id, row.email))) return 'failed';
      }
      await markVerificationTokenUsed(trx, row.id);
      return 'success';
    });
  } catch (err) {
    // Two accounts verifying the same private contact at once: the unique index decides.
    if ((err as { code?: string }).code === '23505') return 'contact_taken';
    ctx.log.error({ err }, 'email verification failed unexpectedly');
    return 'error';
  }
}
