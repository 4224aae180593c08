import type { Request, Response } from 'express';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { clearSessionCookies, setSessionCookies } from '../../http/cookies';
import { ApiError } from '../../http/errors';
import { IdpError, type TokenSet } from '../../integrations/idp/port';
import { sha256Hex } from '../../infra/hash';
import { actorFromClaims, actorFromSessionCookies, verifyIdToken } from './credentials';
import * as e from './idp.errors';
import * as repo from './idp.repo';
import { cookiesOf } from './idp.account';
import { loadSessionUser } from './session';

// A browser session's renewal from its refresh cookie, and the current user read that renews it.

/**
 * New access and ID tokens from the refresh cookie. Unreachable provider: 503, cookies kept.
 * Anything else wrong: 401 `Session expired, please sign in again`, cookies cleared.
 */
async function renew(ctx: AppContext, req: Request, res: Response): Promise<{ actor: Actor; tokens: TokenSet }> {
  const c = cookiesOf(req);
  const refreshToken = c.refresh_token;
  const fail = () => {
    clearSessionCookies(res, ctx.config);
    return e.sessionExpired();
  };
  if (!refreshToken) throw fail();
  // Providers that sign refreshes with a secret hash need the username (from the old ID token).
  let username: string | undefined;
  if (c.id_token) {
    const old = await verifyIdToken(ctx, c.id_token, { ignoreExpiration: true }).catch(() => null);
    username = typeof old?.['cognito:username'] === 'string' ? old['cognito:username'] : old?.sub;
  }
  // The id_token cookie lapses after an hour; the refresh token's remembered owner does not.
  if (!username && ctx.idp.kind !== 'local') username = (await repo.findRefreshOwner(ctx.db, sha256Hex(refreshToken)))?.subject;
  let tokens: TokenSet;
  try {
    tokens = await ctx.idp.refresh(refreshToken, username);
  } catch (err) {
    if (err instanceof IdpError && err.unreachable) throw e.idpUnavailable();
    if (err instanceof IdpError) throw fail();
    throw err;
  }
  let actor: Actor;
  try {
    actor = await actorFromClaims(ctx, await verifyIdToken(ctx, tokens.idToken), 'session');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw fail();
    throw err;
  }
  setSessionCookies(res, ctx.config, { ...tokens, refreshToken: undefined });
  return { actor, tokens };
}

export async function refreshSession(ctx: AppContext, req: Request, res: Response) {
  const { tokens } = await renew(ctx, req, res);
  return { message: 'Session refreshed', expiresIn: tokens.expiresIn };
}

export async function currentUser(ctx: AppContext, req: Request, res: Response) {
  const c = cookiesOf(req);
  if (!c.access_token && !c.id_token && !c.refresh_token) {
    // Every 401 of this read clears the cookies (a bearer client may still hold stale ones).
    clearSessionCookies(res, ctx.config);
    throw new ApiError(401, 'Not authenticated', 'This operation needs a browser session (cookies)');
  }
  let actor: Actor;
  try {
    actor = await actorFromSessionCookies(ctx, req);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
    // Transparent renewal when only the refresh cookie is still good.
    actor = (await renew(ctx, req, res)).actor;
  }
  const user = await loadSessionUser(ctx, actor.userId);
  return {
    user: actor.impersonatedBy ? { ...user, is_impersonating: true, impersonated_by: actor.impersonatedBy } : user,
  };
}
