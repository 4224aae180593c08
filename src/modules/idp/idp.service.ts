import type { Request, Response } from 'express';
import type { AppContext } from '../../context';
import { clearSessionCookies, setSessionCookies } from '../../http/cookies';
import { isCrossSite } from '../../http/csrf';
import { ApiError } from '../../http/errors';
import { checkCaptcha, clearAuthFailures, recordAuthFailure } from '../../http/captcha-gate';
import { throttledPasswordAttempt } from './sign-in-throttle';
import { LocalIdentityProvider } from '../../integrations/idp/local/local-provider';
import { IdpError, REFRESH_TTL_SECONDS, type TokenSet } from '../../integrations/idp/port';
import { normalizeEmail } from '../../infra/email';
import { sha256Hex } from '../../infra/hash';
import { requestLocale } from '../../integrations/mail/index';
import { sendEmailVerification } from '../verification';
import { verifyIdToken } from './credentials';
import * as e from './idp.errors';
import * as repo from './idp.repo';
import { cookiesOf, subjectOf } from './idp.account';

export { currentUser, refreshSession } from './idp.refresh';
import { accountDisabled, toSessionUser, type SessionUser } from './session';

// ---------------------------------------------------------------------------------------------
// Sign-up and confirmation

export interface SignUpInput {
  email: string;
  password: string;
  name?: string | null;
  ambassadorInviteToken?: string;
  captchaToken?: string;
}

export async function signUp(ctx: AppContext, req: Request | null, input: SignUpInput) {
  const email = normalizeEmail(input.email);
  if (req) await checkCaptcha(ctx, req, { action: 'signup', email, captchaToken: input.captchaToken });
  if (!ctx.idp.passwordMeetsPolicy(input.password)) throw e.passwordRefused();
  if (await repo.findUserByEmail(ctx.db, email)) {
    if (req) await recordAuthFailure(ctx, req, email);
    throw e.emailTaken();
  }
  try {
    const result = await ctx.db.transaction(async (trx) => {
      const roles = ['user'];
      const inviteHash = input.ambassadorInviteToken ? sha256Hex(input.ambassadorInviteToken) : null;
      if (inviteHash) {
        if (!(await repo.claimAmbassadorInvite(trx, inviteHash, email))) {
          throw new ApiError(400, 'Invalid invitation token', 'The ambassador invitation is unknown, used or for another address', {
            code: 'INVALID_INVITE_TOKEN',
          });
        }
        roles.push('ambassador');
      }
      // The name is only ever what the person typed; never derived from the address.
      const name = input.name?.trim() || null;
      // The language the person signed up in (lang query / cookie / Accept-Language) localises their mails.
      const locale = req ? (requestLocale(req) ?? undefined) : undefined;
      const user = await repo.insertUser(trx, { email, name, roles, locale });
      const { sub, userConfirmed } = await ctx.idp.signUp({ email, password: input.password, userId: user.id, trx });
      if (ctx.idp.kind !== 'local') await repo.setIdpSubject(trx, user.id, sub);
      if (inviteHash) await repo.markInviteUsedBy(trx, inviteHash, user.id);
      await sendEmailVerification(ctx, trx, { id: user.id, email: user.email, locale: user.locale });
      return { user, userConfirmed };
    });
    return {
      message: result.userConfirmed
        ? 'Account created. We sent a link to verify your email address.'
        : 'Account created. Enter the confirmation code we sent to finish signing up.',
      userConfirmed: result.userConfirmed,
      user: toSessionUser(result.user),
    };
  } catch (err) {
    // Two sign-ups for one address at once: the unique index decides.
    if ((err as { code?: string }).code === '23505') throw e.emailTaken();
    throw e.fromIdpError(err);
  }
}

export async function confirmSignUp(ctx: AppContext, email: string, code: string) {
  try {
    await ctx.idp.confirmSignUp(normalizeEmail(email), code.trim());
  } catch (err) {
    if (err instanceof IdpError && err.kind === 'not_authorized') throw e.invalidCode();
    throw e.fromIdpError(err);
  }
  return { message: 'Account confirmed. You can sign in now.' };
}

// ---------------------------------------------------------------------------------------------
// Sign-in

export type SignInAnswer =
  | { message: string; user: SessionUser; expiresIn: number }
  | { challengeRequired: true; challengeName: string; session: string };

/** Tokens fresh from the provider -> the account; refuses accounts that are not active. */
async function completeSignIn(ctx: AppContext, res: Response, tokens: TokenSet): Promise<SignInAnswer> {
  const claims = await verifyIdToken(ctx, tokens.idToken);
  const user =
    ctx.idp.kind === 'local'
      ? await repo.findUserById(ctx.db, String(claims.sub))
      : await provisionExternalAccount(ctx, String(claims.sub), String(claims.email ?? ''), claims.email_verified === true || claims.email_verified === 'true');
  if (!user) throw e.invalidCredentials();
  if (user.status !== 'active') {
    if (tokens.refreshToken) await ctx.idp.revokeRefreshToken(tokens.refreshToken).catch(() => undefined);
    throw accountDisabled(user.status);
  }
  if (tokens.refreshToken && ctx.idp.kind !== 'local') {
    await repo.rememberRefreshOwner(ctx.db, sha256Hex(tokens.refreshToken), user.id, String(claims.sub), REFRESH_TTL_SECONDS);
  }
  setSessionCookies(res, ctx.config, tokens);
  return { message: 'Signed in', user: toSessionUser(user), expiresIn: tokens.expiresIn };
}

/** A pool account without a profile yet (signed up in the native app): linked or created. */
async function provisionExternalAccount(
  ctx: AppContext,
  subject: string,
  email: string,
  emailVerified: boolean,
): Promise<repo.UserRow | undefined> {
  const bySub = await repo.findUserBySubject(ctx.db, subject);
  if (bySub) return bySub;
  if (!email) return undefined;
  const existing = await repo.findUserByEmail(ctx.db, email);
  if (existing) {
    // Only a verified address may attach the pool account to an existing profile.
    if (!emailVerified || existing.idp_subject) return undefined;
    await repo.setIdpSubject(ctx.db, existing.id, subject);
    return { ...existing, idp_subject: subject };
  }
  const user = await repo.insertUser(ctx.db, { email: normalizeEmail(email), name: null, roles: ['user'] });
  await repo.setIdpSubject(ctx.db, user.id, subject);
  return { ...user, idp_subject: subject };
}

export async function signIn(
  ctx: AppContext,
  req: Request,
  res: Response,
  input: { email: string; password: string; captchaToken?: string },
): Promise<SignInAnswer> {
  const email = normalizeEmail(input.email);
  let result;
  try {
    result = await throttledPasswordAttempt(
      ctx.db,
      email,
      () => ctx.idp.initiateAuth(email, input.password),
      () => checkCaptcha(ctx, req, { action: 'signin', email, captchaToken: input.captchaToken }),
    );
  } catch (err) {
    if (err instanceof IdpError && err.kind === 'not_authorized') {
      await recordAuthFailure(ctx, req, email);
      throw e.invalidCredentials();
    }
    if (err instanceof IdpError && err.kind === 'user_disabled') {
      const u = await repo.findUserByEmail(ctx.db, email);
      throw accountDisabled(u?.status ?? 'disabled');
    }
    throw e.fromIdpError(err);
  }
  // A further challenge: no cookies until it is answered.
  if (result.kind === 'challenge') {
    return { challengeRequired: true, challengeName: result.challengeName, session: result.session };
  }
  const answer = await completeSignIn(ctx, res, result.tokens);
  await clearAuthFailures(ctx, req, email);
  return answer;
}

export async function respondToChallenge(
  ctx: AppContext,
  res: Response,
  input: { email: string; session: string; newPassword: string },
): Promise<SignInAnswer> {
  let result;
  try {
    result = await ctx.idp.respondToNewPasswordChallenge(normalizeEmail(input.email), input.session, input.newPassword);
  } catch (err) {
    if (err instanceof IdpError && err.kind === 'not_authorized') {
      throw new ApiError(401, 'Invalid session', 'The challenge session is invalid or has expired; sign in again', {
        code: 'CHALLENGE_SESSION_INVALID',
      });
    }
    throw e.fromIdpError(err);
  }
  if (result.kind === 'challenge') {
    return { challengeRequired: true, challengeName: result.challengeName, session: result.session };
  }
  return completeSignIn(ctx, res, result.tokens);
}

// ---------------------------------------------------------------------------------------------
// Sign-out (refresh and the current user: idp.refresh.ts)

/** Ends every session of the account: refresh tokens revoked, earlier ID/access tokens refused. */
export async function globalSignOut(ctx: Pick<AppContext, 'db' | 'idp'>, userId: string): Promise<void> {
  const u = await repo.findUserById(ctx.db, userId);
  if (!u) return;
  await repo.cutOffTokens(ctx.db, userId);
  await repo.forgetRefreshOwners(ctx.db, userId);
  const sub = subjectOf(ctx, u);
  if (sub) await ctx.idp.globalSignOut(sub);
}

/** Always succeeds: cookies cleared; global sign-out where the cookies name the account. */
export async function logout(ctx: AppContext, req: Request, res: Response) {
  const c = cookiesOf(req);
  // A cross-site page cannot sign the account out of every device: it only gets the cookies cleared.
  if (isCrossSite(req, ctx.config)) {
    clearSessionCookies(res, ctx.config);
    return { message: 'Signed out' };
  }
  try {
    let userId: string | null = null;
    if (c.id_token) {
      const claims = await verifyIdToken(ctx, c.id_token, { ignoreExpiration: true }).catch(() => null);
      if (claims?.sub) {
        const u =
          ctx.idp.kind === 'local'
            ? await repo.findUserById(ctx.db, claims.sub).catch(() => undefined)
            : await repo.findUserBySubject(ctx.db, claims.sub);
        userId = u?.id ?? null;
      }
    }
    // Without a readable ID token cookie, the local provider still knows whose refresh token it is.
    if (!userId && c.refresh_token && ctx.idp.kind === 'local' && ctx.idp instanceof LocalIdentityProvider) {
      userId = (await ctx.idp.ownerOfRefreshToken(c.refresh_token)) ?? null;
    } else if (!userId && c.refresh_token) {
      userId = (await repo.findRefreshOwner(ctx.db, sha256Hex(c.refresh_token)))?.user_id ?? null;
    }
    if (c.refresh_token) await ctx.idp.revokeRefreshToken(c.refresh_token);
    if (userId) await globalSignOut(ctx, userId);
  } catch (err) {
    req.log?.warn({ err }, 'sign-out: identity provider call failed; cookies cleared anyway');
  }
  clearSessionCookies(res, ctx.config);
  return { message: 'Signed out' };
}
