import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Request } from 'express';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/knex';
import type { Actor, CredentialKind, PlatformRole } from '../../http/actor';
import { ApiError } from '../../http/errors';
import { PLATFORM_ROLES } from '../../http/permissions';
import type { IdentityProvider } from '../../integrations/idp';
import { ownerById, ownerBySubject as ownerLinkedTo, type CredentialOwnerRow } from './credential-owner.reads';
import { linkSubjectByEmail } from './idp.repo';

/**
 * Whose is an identity-provider ID token, and may it still be used: the identity module answers
 * (it owns the accounts); the credential resolver (modules/auth) picks the credential a request
 * carries and asks here. Nothing in this file depends on src/context.ts.
 */

// Not define-routes' `uuid`: the route pipeline names the context type, which this file stays clear of.
const uuid = z.guid();

/**
 * What resolving a credential needs: the whole AppContext satisfies it. Kept narrow so this file
 * does not depend on src/context.ts: the credential resolver (modules/auth) builds on it.
 */
export interface CredentialDeps {
  db: Db;
  /** Read on every call, so a provider a test swaps into the context takes effect. */
  idp: Pick<IdentityProvider, 'kind' | 'verification'>;
}

export const tokenInvalid = (message = 'The token is invalid or expired') =>
  new ApiError(401, 'Invalid token', message, { code: 'TOKEN_INVALID' });
export const tokenUnverifiable = (message = 'The token could not be verified') =>
  new ApiError(401, 'Invalid token', message, { code: 'TOKEN_VERIFICATION_FAILED' });

/**
 * The provider's public keys as KeyObjects, parsed once: given a PEM, jsonwebtoken parses it
 * again on every verification (createPublicKey was a third of a signed-in read's CPU).
 */
const keyObjects = new LRUCache<string, KeyObject>({ max: 64 });
function keyObjectOf(pem: string): KeyObject {
  let key = keyObjects.get(pem);
  if (!key) keyObjects.set(pem, (key = createPublicKey(pem)));
  return key;
}

/**
 * ID tokens that passed every check below, by the token's exact text, for at most 5 minutes and
 * never past their own expiry: a browser sends the same token on every request, and the RS256
 * signature check is the costliest step of a signed-in read. Whether the account and session may
 * still use it (liveOwner) is checked on every request regardless; expiry is re-checked on a hit.
 * The signature and claims of a given text never change, so a hit answers what a check would.
 */
const verified = new LRUCache<string, jwt.JwtPayload>({ max: 10_000, ttl: 5 * 60_000 });

/**
 * Verifies an identity-provider ID token: RS256 only, against the configured provider's keys,
 * issuer and audience; `exp` is required; `token_use` must be `id` (an access token is refused).
 */
export async function verifyIdToken(
  ctx: CredentialDeps,
  token: string,
  opts: { ignoreExpiration?: boolean } = {},
): Promise<jwt.JwtPayload> {
  const v = ctx.idp.verification;
  // Keyed by the provider's issuer and audience too: a swapped provider (tests) never sees another's tokens.
  const memoKey = `${v.issuer}\n${v.audience}\n${token}`;
  const memo = verified.get(memoKey);
  if (memo) {
    if (!opts.ignoreExpiration && memo.exp! * 1000 <= Date.now()) throw tokenInvalid('The token has expired');
    return memo;
  }
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload === 'string') throw tokenUnverifiable();
  if (decoded.header.alg !== 'RS256' || !decoded.header.kid) throw tokenUnverifiable('Only RS256 tokens from the identity provider are accepted');
  const pem = await v.getPublicKey(decoded.header.kid);
  if (!pem) throw tokenUnverifiable('The token was signed by an unknown key');
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(token, keyObjectOf(pem), { algorithms: ['RS256'], issuer: v.issuer, ignoreExpiration: opts.ignoreExpiration }) as jwt.JwtPayload;
  } catch (err) {
    if (err instanceof jwt.TokenExpiredError) throw tokenInvalid('The token has expired');
    if (err instanceof jwt.NotBeforeError) throw tokenInvalid('The token is not valid yet');
    throw tokenUnverifiable();
  }
  // jsonwebtoken accepts a token without exp as valid forever; every token we accept must lapse.
  if (typeof claims.exp !== 'number') throw tokenInvalid('The token has no expiry');
  if (claims.token_use !== 'id') throw tokenInvalid('Send the ID token, not the access token');
  if (claims.aud !== v.audience) throw tokenInvalid('The token was issued to another client');
  const ttl = claims.exp * 1000 - Date.now();
  if (ttl > 0) verified.set(memoKey, claims, { ttl: Math.min(ttl, 5 * 60_000) });
  return claims;
}

/**
 * The account behind verified claims (ID or access token), still allowed to use them: checked on
 * every request (no cache), so suspension, bans, deactivation, a revoked session and
 * sign-out-everywhere cut a token off at once. Throws 401 Invalid token otherwise.
 */
export async function liveOwner(ctx: CredentialDeps, claims: jwt.JwtPayload): Promise<CredentialOwnerRow> {
  const sub = claims.sub ?? '';
  let owner: CredentialOwnerRow | undefined;
  if (ctx.idp.kind === 'local') {
    const sessionId = uuid.safeParse(claims.origin_jti).data ?? null;
    if (!uuid.safeParse(sub).success || !sessionId) throw tokenInvalid();
    owner = await ownerById(ctx.db, sub, sessionId);
    if (owner && (!owner.session_id || owner.session_revoked_at)) throw tokenInvalid('The session has been signed out');
  } else {
    // Linking by address only with a verified address: an unverified one could claim someone's account.
    const verified = claims.email_verified === true || claims.email_verified === 'true';
    owner = await ownerBySubject(ctx.db, sub, verified && typeof claims.email === 'string' ? claims.email : undefined);
  }
  if (!owner) throw tokenInvalid('The account no longer exists');
  if (owner.status !== 'active') throw tokenInvalid(`The account is ${owner.status}`);
  // iat has one-second resolution; compare in whole seconds.
  if (owner.tokens_valid_after && (claims.iat ?? 0) < Math.floor(owner.tokens_valid_after.getTime() / 1000)) {
    throw tokenInvalid('The session has been signed out');
  }
  return owner;
}

/** Maps verified claims to the actor of a request (see liveOwner for what cuts a token off). */
export async function actorFromClaims(ctx: CredentialDeps, claims: jwt.JwtPayload, credential: CredentialKind): Promise<Actor> {
  const owner = await liveOwner(ctx, claims);
  return {
    userId: owner.id,
    email: owner.email,
    roles: owner.roles.filter((r): r is PlatformRole => (PLATFORM_ROLES as readonly string[]).includes(r)),
    credential,
    emailVerified: owner.email_verified,
    impersonatedBy: owner.impersonated_by ?? null,
    apiKeyId: null,
  };
}

/** The cookie session's actor; throws 401 Invalid token when the cookies do not hold a live session. */
export async function actorFromSessionCookies(ctx: CredentialDeps, req: Request): Promise<Actor> {
  const idToken = (req.cookies as Record<string, unknown> | undefined)?.id_token;
  if (typeof idToken !== 'string' || !idToken) throw tokenInvalid('The session has expired');
  return actorFromClaims(ctx, await verifyIdToken(ctx, idToken), 'session');
}

/**
 * The account an external provider's subject belongs to; an unlinked account with the token's
 * verified address is linked to the subject once (a second subject then finds it taken).
 */
async function ownerBySubject(db: Db, subject: string, email: string | undefined): Promise<CredentialOwnerRow | undefined> {
  const row = await ownerLinkedTo(db, subject);
  if (row || !email) return row;
  return (await linkSubjectByEmail(db, subject, email)) ? ownerLinkedTo(db, subject) : undefined;
}
