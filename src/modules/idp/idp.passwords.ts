import type { Request } from 'express';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { notAuthenticated } from '../../http/auth-rules';
import { ApiError } from '../../http/errors';
import { issueCode, redeemCode } from '../../integrations/idp/codes';
import { hasLocalPassword } from '../../integrations/idp';
import { IdpError } from '../../integrations/idp/port';
import { normalizeEmail } from '../../infra/email';
import { queueMail, toLocale } from '../../integrations/mail/index';
import * as e from './idp.errors';
import * as repo from './idp.repo';
import { cookiesOf, subjectOf } from './idp.account';
import { globalSignOut } from './idp.service';

/** Forgot, reset and change password (a 6-digit code by mail, one hour, single use). */
const RESET_CODE_TTL_SECONDS = 3600;

export async function forgotPassword(ctx: AppContext, email: string) {
  const user = await repo.findUserByEmail(ctx.db, normalizeEmail(email));
  if (user && user.status === 'active') {
    await ctx.db.transaction(async (trx) => {
      const code = await issueCode(trx, user.id, 'password_reset', RESET_CODE_TTL_SECONDS);
      await queueMail(trx, { to: user.email, template: 'password_reset', locale: toLocale(user.locale), vars: { code } });
    });
  }
  // Same answer whether or not the account exists.
  return { message: 'If an account exists for this address, we sent a code to reset the password.' };
}

export async function resetPassword(ctx: AppContext, input: { email: string; code: string; newPassword: string }) {
  const user = await repo.findUserByEmail(ctx.db, normalizeEmail(input.email));
  if (!user) throw e.invalidCode();
  // Checked before the code is spent, so a refused password does not burn the code.
  if (!ctx.idp.passwordMeetsPolicy(input.newPassword)) throw e.passwordRefused();
  const check = await redeemCode(ctx.db, user.id, 'password_reset', input.code.trim());
  if (check === 'expired') throw e.expiredCode();
  if (check === 'mismatch') throw e.invalidCode();
  try {
    await ctx.idp.setPassword(user.email, input.newPassword);
  } catch (err) {
    throw e.fromIdpError(err);
  }
  // Whoever knew the old password is signed out everywhere.
  await globalSignOut(ctx, user.id).catch((err) => ctx.log.warn({ err }, 'reset-password: global sign-out failed'));
  return { message: 'Your password has been reset. Sign in with the new password.' };
}

export async function changePassword(ctx: AppContext, req: Request, actor: Actor, input: { currentPassword: string; newPassword: string }) {
  if (actor.impersonatedBy) {
    throw new ApiError(403, 'Forbidden', 'The password cannot be changed while viewing the account on the owner\'s behalf');
  }
  const user = await repo.findUserById(ctx.db, actor.userId);
  if (!user) throw notAuthenticated();
  if (ctx.idp.kind === 'local' && !(await hasLocalPassword(ctx.db, user.id))) throw e.noPassword();
  if (!ctx.idp.passwordMeetsPolicy(input.newPassword)) throw e.passwordRefused();
  try {
    await ctx.idp.changePassword({
      sub: subjectOf(ctx, user) ?? user.id,
      email: user.email,
      accessToken: cookiesOf(req).access_token,
      currentPassword: input.currentPassword,
      newPassword: input.newPassword,
    });
  } catch (err) {
    if (err instanceof IdpError && err.kind === 'not_authorized') {
      throw new ApiError(400, 'Incorrect current password', 'The current password is not correct', { code: 'INCORRECT_PASSWORD' });
    }
    throw e.fromIdpError(err);
  }
  return { message: 'Password changed' };
}
