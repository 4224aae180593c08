import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Db } from '../../src/db/knex';
import type { TestApp } from './app';
import { authHeaders, createUser, type TestUser } from './auth';

export type OrgRoleName = 'org_viewer' | 'org_admin' | 'org_owner';

export interface TestOrg {
  id: string;
  slug: string;
  name: string;
}

/** A fresh client address per request (the app runs with TRUST_PROXY=loopback), so the global 100/min bucket never trips. */
export const freshIp = () => `10.${(Math.random() * 250) | 0}.${(Math.random() * 250) | 0}.${(Math.random() * 250) | 0}`;

/** Registers an organization through the API as `owner` (who becomes its org_owner). */
export async function registerOrg(t: TestApp, owner: TestUser, body: Record<string, unknown> = {}): Promise<TestOrg> {
  const tag = randomUUID().slice(0, 8);
  const r = await request(t.app)
    .post('/api/v1/organizations')
    .set(await authHeaders(t, owner))
    .set('X-Forwarded-For', freshIp())
    .send({ name: `Org ${tag}`, slug: `org-${tag}`, ...body });
  if (r.status !== 201) throw new Error(`registration answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** Adds a membership row directly (for tests that are not about adding members). */
export async function addMembership(db: Db, orgId: string, userId: string, role: OrgRoleName): Promise<void> {
  await db('org_members').insert({ org_id: orgId, user_id: userId, role });
}

/** An organization with one user in each role, plus a signed-in outsider. */
export async function orgWithRoles(t: TestApp) {
  const db = t.ctx.db;
  const owner = await createUser(db);
  const org = await registerOrg(t, owner);
  const admin = await createUser(db);
  const viewer = await createUser(db);
  const outsider = await createUser(db);
  await addMembership(db, org.id, admin.id, 'org_admin');
  await addMembership(db, org.id, viewer.id, 'org_viewer');
  return { org, owner, admin, viewer, outsider };
}

/** The smallest file that starts like a PDF. */
export const TINY_PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');
