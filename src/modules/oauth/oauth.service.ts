import { errors, generators, type BaseClient, type IdTokenClaims, type UserinfoResponse } from 'openid-client';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { normalizeEmail } from '../../infra/email';
import { type OAuthFlow } from './flow-store';
import { callbackUrl, clientFor, providerSettings, type OAuthProvider } from '../../integrations/oauth/providers';
import { accountByEmailForUpdate, createSocialAccount } from '../idp';
import { sendEmailVerification } from '../verification';
import * as repo from './oauth.repo';

/** The callback's failure reasons (spec "Account and session", rule 2), plus the provider's own error code. */
export type CallbackFailure =
  | 'state_mismatch'
  | 'missing_code'
  | 'oauth_error'
  | 'token_exchange_failed'
  | 'invalid_token'
  | 'unverified_account_exists'
  | (string & {});

export type CallbackOutcome = { ok: true; userId: string; redirect: string } | { ok: false; reason: CallbackFailure };

export const SCOPE = 'openid email profile';

/** The authorization URL for a new flow (code + PKCE S256 + nonce) and the secrets to remember. */
export function authorizationRequest(client: BaseClient, ctx: AppContext) {
  const state = generators.state();
  const nonce = generators.nonce();
  const codeVerifier = generators.codeVerifier();
  const url = client.authorizationUrl({
    scope: SCOPE,
    response_type: 'code',
    redirect_uri: callbackUrl(ctx.config),
    state,
    nonce,
    code_challenge: generators.codeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url, state, nonce, codeVerifier };
}

// An error code from the provider is passed through only when it looks like an OAuth error code.
const PROVIDER_ERROR = /^[A-Za-z0-9_.-]{1,64}$/;

export interface CallbackParams {
  code?: string;
  state?: string;
  error?: string;
  iss?: string;
}

const emailSchema = z.email();

interface Identity {
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
}

/** Claims from the validated ID token; the userinfo endpoint fills in a missing email. */
async function identityFrom(
  client: BaseClient,
  tokens: Awaited<ReturnType<BaseClient['callback']>>,
): Promise<Identity | null> {
  let claims: IdTokenClaims | UserinfoResponse = tokens.claims();
  if (typeof claims.email !== 'string' && tokens.access_token && client.issuer.metadata.userinfo_endpoint) {
    try {
      // openid-client checks that userinfo's `sub` is the ID token's.
      const info = await client.userinfo(tokens);
      claims = { ...claims, email: info.email, email_verified: info.email_verified, name: claims.name ?? info.name };
    } catch {
      return null;
    }
  }
  const subject = claims.sub;
  const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : '';
  if (!subject || subject.length > 255 || !emailSchema.safeParse(email).success) return null;
  const verified = claims.email_verified === true || (claims.email_verified as unknown) === 'true';
  // The provider's own name claim only; never derived from the address.
  const given = [claims.given_name, claims.family_name].filter((p) => typeof p === 'string' && p.trim()).join(' ');
  const rawName = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim() : given || null;
  return { subject, email, emailVerified: verified, name: rawName ? rawName.slice(0, 200) : null };
}

/**
 * Finds or creates the account for a provider identity:
 * 1. already linked (provider, subject) -> that account;
 * 2. an account with the same address (case-insensitive) -> linked only when both the account's
 *    address and the provider's address are verified; otherwise `unverified_account_exists`
 *    (linking on an unproven address would hand the account to whoever controls the other side);
 * 3. no account -> a new one without password, email_verified from the provider's claim.
 */
async function findOrCreateAccount(
  ctx: AppContext,
  provider: OAuthProvider,
  id: Identity,
  locale?: string | null,
): Promise<{ userId: string } | { reason: CallbackFailure }> {
  const linked = await repo.linkedUserId(ctx.db, provider, id.subject);
  if (linked) return { userId: linked };
  return ctx.db.transaction(async (trx) => {
    const existing = await accountByEmailForUpdate(trx, id.email);
    if (existing) {
      if (!existing.email_verified || !id.emailVerified) return { reason: 'unverified_account_exists' };
      await repo.insertIdentity(trx, { provider, subject: id.subject, user_id: existing.id, email: id.email });
      return { userId: existing.id };
    }
    const user = await createSocialAccount(trx, {
      email: id.email,
      name: id.name,
      email_verified: id.emailVerified,
      locale: locale ?? undefined,
    });
    await repo.insertIdentity(trx, { provider, subject: id.subject, user_id: user.id, email: id.email });
    if (!user.email_verified) await sendEmailVerification(ctx, trx, user);
    return { userId: user.id };
  });
}

/** Everything the callback decides, up to (not including) the session. */
export async function completeCallback(
  ctx: AppContext,
  flow: OAuthFlow | null,
  params: CallbackParams,
): Promise<CallbackOutcome> {
  if (params.error !== undefined) {
    return { ok: false, reason: PROVIDER_ERROR.test(params.error) ? params.error : 'oauth_error' };
  }
  if (!flow || !params.state || params.state !== flow.state) return { ok: false, reason: 'state_mismatch' };
  if (!params.code) return { ok: false, reason: 'missing_code' };

  const settings = providerSettings(ctx.config, flow.provider);
  if (!settings) return { ok: false, reason: 'oauth_error' };
  let client: BaseClient;
  try {
    client = await clientFor(ctx.config, settings);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message, provider: flow.provider }, 'OAuth provider discovery failed');
    return { ok: false, reason: 'token_exchange_failed' };
  }

  let tokens: Awaited<ReturnType<BaseClient['callback']>>;
  try {
    const cb: Record<string, string> = { code: params.code, state: params.state };
    if (params.iss) cb.iss = params.iss;
    tokens = await client.callback(callbackUrl(ctx.config), cb, {
      state: flow.state,
      nonce: flow.nonce,
      code_verifier: flow.codeVerifier,
      response_type: 'code',
    });
  } catch (err) {
    // RPError: the answer arrived but the ID token (signature, iss, aud, nonce, expiry) or its
    // presence failed our checks. Anything else (OPError from the token endpoint, network) is
    // the exchange itself failing.
    const invalid = err instanceof errors.RPError;
    ctx.log.warn({ err: (err as Error).message, provider: flow.provider }, 'OAuth callback rejected');
    return { ok: false, reason: invalid ? 'invalid_token' : 'token_exchange_failed' };
  }

  const identity = await identityFrom(client, tokens);
  if (!identity) return { ok: false, reason: 'invalid_token' };

  let found: { userId: string } | { reason: CallbackFailure };
  try {
    found = await findOrCreateAccount(ctx, flow.provider, identity, flow.locale);
  } catch (err) {
    // Two callbacks for the same new identity at once: the unique index decides; re-read the link.
    if ((err as { code?: string }).code !== '23505') throw err;
    const linked = await repo.linkedUserId(ctx.db, flow.provider, identity.subject);
    if (!linked) return { ok: false, reason: 'oauth_error' };
    found = { userId: linked };
  }
  if ('reason' in found) return { ok: false, reason: found.reason };
  return { ok: true, userId: found.userId, redirect: flow.redirect };
}
