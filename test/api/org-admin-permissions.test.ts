import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { addMembership, freshIp, orgWithRoles, registerOrg, TINY_PDF, type TestOrg } from '../helpers/organizations';

afterAll(closeDb);

const t = createTestApp({ env: { TRUST_PROXY: 'loopback', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'org-perm-')) } });

// The spec's roles table, written out here rather than read from the code under test.
const SPEC: Record<string, string[]> = {
  org_viewer: ['org.read', 'org.read_donations', 'org.read_payouts', 'org.read_donors'],
  org_admin: [
    'org.read', 'org.read_donations', 'org.read_payouts', 'org.read_donors',
    'org.update_settings', 'org.manage_members', 'org.manage_dbas', 'org.manage_locations', 'org.upload_documents',
  ],
  org_owner: [
    'org.read', 'org.read_donations', 'org.read_payouts', 'org.read_donors',
    'org.update_settings', 'org.manage_members', 'org.manage_dbas', 'org.manage_locations', 'org.upload_documents',
    'org.manage_children', 'org.manage_payouts',
  ],
  outsider: [],
};

type Role = keyof typeof SPEC;

interface Ctx {
  org: TestOrg;
  caller: TestUser;
  users: Record<Role, TestUser>;
}

interface Case {
  name: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  permission: string;
  /** Path under /org-admin/{slug}; may depend on per-case setup. */
  path: (c: Ctx) => Promise<string> | string;
  send?: (c: Ctx) => Promise<unknown> | unknown;
  pdf?: boolean;
  ok: number;
}

const db = () => testDb();
const newMember = async (c: Ctx) => {
  const u = await createUser(db());
  await addMembership(db(), c.org.id, u.id, 'org_viewer');
  return u;
};

const CASES: Case[] = [
  { name: 'dashboard', method: 'get', permission: 'org.read', path: () => '/dashboard', ok: 200 },
  { name: 'fundraisers', method: 'get', permission: 'org.read', path: () => '/fundraisers', ok: 200 },
  { name: 'donations', method: 'get', permission: 'org.read_donations', path: () => '/donations', ok: 200 },
  { name: 'user search', method: 'get', permission: 'org.manage_members', path: () => '/users/search?q=test', ok: 200 },
  { name: 'members list', method: 'get', permission: 'org.read', path: () => '/members', ok: 200 },
  {
    name: 'add member',
    method: 'post',
    permission: 'org.manage_members',
    path: () => '/members',
    send: async () => ({ user_id: (await createUser(db())).id, role: 'org_viewer' }),
    ok: 201,
  },
  {
    name: 'change role',
    method: 'patch',
    permission: 'org.manage_members',
    path: async (c) => `/members/${(await newMember(c)).id}`,
    send: () => ({ role: 'org_viewer' }),
    ok: 200,
  },
  { name: 'remove member', method: 'delete', permission: 'org.manage_members', path: async (c) => `/members/${(await newMember(c)).id}`, ok: 204 },
  { name: 'settings', method: 'patch', permission: 'org.update_settings', path: () => '/settings', send: () => ({ description: 'Updated' }), ok: 200 },
  { name: 'upload document', method: 'post', permission: 'org.upload_documents', path: () => '/documents?name=Charter', pdf: true, ok: 201 },
  { name: 'documents list', method: 'get', permission: 'org.read', path: () => '/documents', ok: 200 },
  {
    name: 'document download',
    method: 'get',
    permission: 'org.read',
    path: async (c) => {
      const r = await request(t.app)
        .post(`/api/v1/org-admin/${c.org.slug}/documents?name=Doc`)
        .set(await authHeaders(t, users.org_owner))
        .set('X-Forwarded-For', freshIp())
        .set('Content-Type', 'application/pdf')
        .send(TINY_PDF);
      return `/documents/${r.body.data.id}`;
    },
    ok: 200,
  },
  { name: 'payouts', method: 'get', permission: 'org.read_payouts', path: () => '/payouts', ok: 200 },
  { name: 'children list', method: 'get', permission: 'org.read', path: () => '/children', ok: 200 },
  {
    name: 'add child',
    method: 'post',
    permission: 'org.manage_children',
    path: () => '/children',
    // A child the caller also owns, so only the permission on this organization decides.
    send: async (c) => ({ organization_id: (await registerOrg(t, c.caller)).id }),
    ok: 201,
  },
];

async function call(c: Case, slug: string, caller: TestUser | null, ctx: Ctx) {
  const p = await c.path(ctx);
  let req = request(t.app)[c.method](`/api/v1/org-admin/${slug}${p}`).set('X-Forwarded-For', freshIp());
  if (caller) req = req.set(await authHeaders(t, caller));
  if (c.pdf) return req.set('Content-Type', 'application/pdf').send(TINY_PDF);
  const body = c.send ? await c.send(ctx) : undefined;
  return body === undefined ? req : req.send(body as object);
}

let org: TestOrg;
let users: Record<Role, TestUser>;

beforeAll(async () => {
  const s = await orgWithRoles(t);
  org = s.org;
  users = { org_owner: s.owner, org_admin: s.admin, org_viewer: s.viewer, outsider: s.outsider };
});

describe('org-admin permission boundaries (each role x each route)', () => {
  for (const role of Object.keys(SPEC) as Role[]) {
    for (const c of CASES) {
      const allowed = SPEC[role].includes(c.permission);
      it(`when ${role} calls ${c.name}, then ${allowed ? c.ok : `403 Requires permission: ${c.permission}`}`, async () => {
        const ctx: Ctx = { org, caller: users[role], users };
        const r = await call(c, org.slug, users[role], ctx);
        if (allowed) {
          expect(r.status).toBe(c.ok);
        } else {
          expect(r.status).toBe(403);
          expect(r.body).toMatchObject({ message: `Requires permission: ${c.permission}`, required_permission: c.permission });
        }
      });
    }
  }
});

describe('unknown and malformed slugs answer 404, never 403', () => {
  const unknown = ['no-such-org-here', 'Bad_Slug', '-leading-dash', 'a'.repeat(256), 'UPPER', 'sp%20ace'];
  for (const c of CASES) {
    it(`when an outsider and an owner call ${c.name} on unknown or malformed slugs, then 404 Organization not found`, async () => {
      for (const slug of unknown) {
        for (const who of [users.outsider, users.org_owner]) {
          const r = await call(c, slug, who, { org, caller: who, users });
          expect([r.status, r.body.message]).toEqual([404, 'Organization not found']);
        }
      }
    });
  }

  it('when signed out, then every org-admin route answers 401', async () => {
    for (const c of CASES) {
      const r = await call(c, org.slug, null, { org, caller: users.outsider, users });
      expect([c.name, r.status]).toEqual([c.name, 401]);
    }
  });
});
