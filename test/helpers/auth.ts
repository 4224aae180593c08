import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/knex';
import type { PlatformRole } from '../../src/http/actor';
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

/**
 * Headers that authenticate as `user` on `t`. TEMPORARY: a test-only header resolver until the
 * identity module lands; it will mint a real ID token from the local identity provider instead.
 */
export async function authHeaders(_t: TestApp, user: TestUser): Promise<Record<string, string>> {
  return { 'x-test-user-id': user.id };
}
