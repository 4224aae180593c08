import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/knex';
import type { PlatformRole } from '../../src/http/actor';
import { LocalIdentityProvider } from '../../src/integrations/idp/local/local-provider';
import type { TokenSet } from '../../src/integrations/idp/port';
import type { TestApp } from './app';

export interface TestUser {
  id: string;
  email: string;
  name: string | null;
  roles: PlatformRole[];
  email_verified: boolean;
}

/** Inserts a user row directly (for tests that are not about sign-up). */
export async function createUser(
  db: Db,
  overrides: Partial<TestUser> & { private_contact_verified?: boolean; status?: string } = {},
): Promise<TestUser> {
  const { private_contact_verified, ...rest } = overrides;
  const email = rest.email ?? `user-${randomUUID().slice(0, 8)}@example.test`;
  const [row] = await db('users')
    .insert({
      email,
      name: rest.name === undefined ? 'Test User' : rest.name,
      roles: rest.roles ?? ['user'],
      email_verified: rest.email_verified ?? true,
      email_verified_at: (rest.email_verified ?? true) ? db.fn.now() : null,
      status: rest.status ?? 'active',
      private_contact_email: private_contact_verified ? `contact-${randomUUID().slice(0, 8)}@example.test` : null,
      private_contact_verified_at: private_contact_verified ? db.fn.now() : null,
      profile_slug: `user-${randomUUID().slice(0, 8)}`,
    })
    .returning('*');
  return { id: row.id, email: row.email, name: row.name, roles: row.roles, email_verified: row.email_verified };
}

/** The built-in identity provider of `t` (or one on the same database when `t` runs Cognito). */
function localIdp(t: TestApp): LocalIdentityProvider {
  return t.ctx.idp instanceof LocalIdentityProvider ? t.ctx.idp : new LocalIdentityProvider(t.ctx.db, t.ctx.config.PUBLIC_URL);
}

/**
 * Headers that authenticate as `user` on `t`: `Authorization: Bearer <ID token>`, a real ID
 * token minted by the local identity provider (the user needs no password).
 */
export async function authHeaders(t: TestApp, user: TestUser): Promise<Record<string, string>> {
  const tokens = await localIdp(t).issueTokensForUser(user.id);
  return { Authorization: `Bearer ${tokens.idToken}` };
}

export const TEST_PASSWORD = 'correct-horse-42';

function cookieHeader(tokens: TokenSet): Record<string, string> {
  const parts = [`access_token=${tokens.accessToken}`, `id_token=${tokens.idToken}`];
  if (tokens.refreshToken) parts.push(`refresh_token=${tokens.refreshToken}`);
  return { Cookie: parts.join('; ') };
}

/**
 * A browser session for `user`: sets TEST_PASSWORD, signs in with it through the identity
 * provider (real password check) and returns the three session cookies as a Cookie header.
 */
export async function sessionCookies(t: TestApp, user: TestUser): Promise<Record<string, string>> {
  const idp = localIdp(t);
  await idp.setPassword(user.email, TEST_PASSWORD);
  const r = await idp.initiateAuth(user.email, TEST_PASSWORD);
  if (r.kind !== 'tokens') throw new Error(`sign-in answered a ${r.challengeName} challenge`);
  return cookieHeader(r.tokens);
}

/** Session cookies minted without a password, as a social sign-in (issueSessionForUser) gets them. */
export async function mintedSessionCookies(t: TestApp, user: TestUser): Promise<Record<string, string>> {
  return cookieHeader(await localIdp(t).issueTokensForUser(user.id));
}

/** Session cookies of `staff` viewing `user`'s account on the user's behalf (impersonation). */
export async function impersonationCookies(t: TestApp, staff: TestUser, user: TestUser): Promise<Record<string, string>> {
  return cookieHeader(await localIdp(t).issueTokensForUser(user.id, { impersonatedBy: staff.id }));
}
