import type { Request } from 'express';
import { hasSessionCookie } from '../../http/cookies';
import type { CredentialResolver } from '../../http/credentials';
import { resolveApiKey } from '../api-keys';
import { actorFromClaims, actorFromSessionCookies, verifyIdToken, type CredentialDeps } from '../idp';

/**
 * Which credential a request carries and whose it is: the identity module (idp) verifies ID
 * tokens and answers their live owner, the API keys module resolves keys.
 */

function bearerOf(req: Request): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

/** Cookies decide when present; else a bearer API key (`ak_live_`) or an ID token; else a guest. */
export function createCredentialResolver(ctx: CredentialDeps): CredentialResolver {
  return {
    async resolve(req) {
      if (hasSessionCookie(req)) return actorFromSessionCookies(ctx, req);
      const token = bearerOf(req);
      if (!token) return null;
      if (token.startsWith('ak_live_')) return resolveApiKey(ctx, token);
      return actorFromClaims(ctx, await verifyIdToken(ctx, token), 'id_token');
    },
  };
}
