import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { addMembership, freshIp, orgWithRoles, registerOrg } from '../helpers/organizations';

afterAll(closeDb);

const t = createTestApp({ env: { TRUST_PROXY: 'loopback' } });
const db = () => testDb();
const admin = (slug: string, p: string) => `/api/v1/org-admin/${slug}${p}`;

async function as(u: TestUser) {
  return { ...(await authHeaders(t, u)), 'X-Forwarded-For': freshIp() };
}

describe('dashboard', () => {
  it('when a conglomerate reads its dashboard, then totals roll up over its children: paid gifts less refunds, signed-in donors only', async () => {
    const owner = await createUser(db());
    const parent = await registerOrg(t, owner);
    const child = await registerOrg(t, owner, { parent_id: parent.id });
    const grandchild = await registerOrg(t, owner, { parent_id: child.id });
    const unrelated = await registerOrg(t, owner);
    const fp = await createFundraiser(db(), owner.id, { org_id: parent.id });
    const fc = await createFundraiser(db(), owner.id, { org_id: child.id, status: 'ended' });
    const fg = await createFundraiser(db(), owner.id, { org_id: grandchild.id });
    const fu = await createFundraiser(db(), owner.id, { org_id: unrelated.id });
    const d1 = await createUser(db());
    const d2 = await createUser(db());
    await createGift(db(), { fundraiserId: fp.id, donorUserId: d1.id, amount: 1000 });
    await createGift(db(), { fundraiserId: fc.id, donorUserId: d1.id, amount: 2000 });
    const refunded = await createGift(db(), { fundraiserId: fg.id, donorUserId: d2.id, amount: 4000 });
    await db()('donations').where({ id: refunded.id }).update({ refunded_cents: 1500 });
    await createGift(db(), { fundraiserId: fg.id, amount: 500 }); // a guest: raised, not a unique donor
    await createGift(db(), { fundraiserId: fp.id, donorUserId: d2.id, amount: 7000, status: 'pending' });
    await createGift(db(), { fundraiserId: fp.id, donorUserId: d2.id, amount: 7000, status: 'failed' });
    await createGift(db(), { fundraiserId: fu.id, donorUserId: d2.id, amount: 9000 });
    const r = await request(t.app).get(admin(parent.slug, '/dashboard')).set(await as(owner));
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      totalRaisedCents: 1000 + 2000 + 2500 + 500,
      uniqueDonors: 2,
      donationCount: 4,
      fundraiserCount: 3,
      activeFundraiserCount: 2,
      memberCount: 1,
      organizationCount: 3,
      currency: 'USD',
    });
    const leaf = await request(t.app).get(admin(grandchild.slug, '/dashboard')).set(await as(owner));
    expect(leaf.body.data).toMatchObject({ totalRaisedCents: 3000, uniqueDonors: 1, organizationCount: 1 });
  });
});

describe('fundraisers and donations', () => {
  it('when the fundraisers are read, then only this organization\'s non-deleted campaigns, newest first, without private contact fields', async () => {
    const { org, owner } = await orgWithRoles(t);
    const other = await registerOrg(t, owner);
    const at = (s: number) => new Date(Date.now() - s * 1000);
    const old = await createFundraiser(db(), owner.id, { org_id: org.id, created_at: at(300), beneficiary_contact: 'secret@x.test' } as any);
    const draft = await createFundraiser(db(), owner.id, { org_id: org.id, status: 'draft', created_at: at(200) } as any);
    const newest = await createFundraiser(db(), owner.id, { org_id: org.id, created_at: at(100) } as any);
    await createFundraiser(db(), owner.id, { org_id: org.id, deleted_at: at(1) } as any);
    await createFundraiser(db(), owner.id, { org_id: other.id });
    await createFundraiser(db(), owner.id);
    const r = await request(t.app).get(admin(org.slug, '/fundraisers')).set(await as(owner));
    expect(r.body.data.map((f: any) => f.id)).toEqual([newest.id, draft.id, old.id]);
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, total: 3 });
    expect(JSON.stringify(r.body)).not.toContain('secret@x.test');
    expect(r.body.data[0]).not.toHaveProperty('beneficiary_contact');
    const drafts = await request(t.app).get(admin(org.slug, '/fundraisers?status=draft')).set(await as(owner));
    expect(drafts.body.data.map((f: any) => f.id)).toEqual([draft.id]);
    const paged = await request(t.app).get(admin(org.slug, '/fundraisers?limit=1&offset=1')).set(await as(owner));
    expect([paged.body.data[0].id, paged.body.pagination.total]).toEqual([draft.id, 3]);
    const beyond = await request(t.app).get(admin(org.slug, '/fundraisers?offset=50')).set(await as(owner));
    expect([beyond.body.data, beyond.body.pagination.total]).toEqual([[], 3]);
  });

  it('when status or limit are out of range, then a bad status is 400 with allowed and limit clamps to 1..100 (default 20)', async () => {
    const { org, viewer } = await orgWithRoles(t);
    const bad = await request(t.app).get(admin(org.slug, '/fundraisers?status=live')).set(await as(viewer));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'Invalid status', allowed: ['draft', 'pending', 'rejected', 'active', 'paused', 'ended'] });
    for (const [q, want] of [['limit=500', 100], ['limit=0', 20], ['limit=-3', 20], ['limit=abc', 20], ['limit=1', 1]] as const) {
      const r = await request(t.app).get(admin(org.slug, `/fundraisers?${q}`)).set(await as(viewer));
      expect([q, r.status, r.body.pagination.limit]).toEqual([q, 200, want]);
    }
    const badDonation = await request(t.app).get(admin(org.slug, '/donations?status=done')).set(await as(viewer));
    expect(badDonation.body).toMatchObject({ error: 'Invalid status', allowed: ['paid', 'refunded', 'failed', 'pending'] });
  });

  it('when donations are read, then gifts to this organization\'s campaigns only, anonymous donors unnamed', async () => {
    const { org, owner, viewer } = await orgWithRoles(t);
    const f = await createFundraiser(db(), owner.id, { org_id: org.id });
    const elsewhere = await createFundraiser(db(), owner.id);
    const named = await createGift(db(), { fundraiserId: f.id, donorEmail: 'named@x.test', amount: 1200 });
    const anon = await createGift(db(), { fundraiserId: f.id, donorEmail: 'anon@x.test', anonymous: true, paidAt: new Date(Date.now() + 1000) });
    await createGift(db(), { fundraiserId: elsewhere.id, donorEmail: 'other@x.test' });
    const r = await request(t.app).get(admin(org.slug, '/donations')).set(await as(viewer));
    expect(r.body.data.map((d: any) => d.id)).toEqual([anon.id, named.id]);
    expect(r.body.data[0]).toMatchObject({ anonymous: true, donor_name: null, donor_email: null });
    expect(r.body.data[1]).toMatchObject({ donor_name: 'Test Donor', donor_email: 'named@x.test', amount_cents: 1200, status: 'paid', fundraiser: { id: f.id } });
    const paid = await request(t.app).get(admin(org.slug, '/donations?status=failed')).set(await as(viewer));
    expect(paid.body.data).toEqual([]);
  });
});

describe('members', () => {
  it('when an admin adds members, then by email or id with roles up to their own; an owner role needs the owner\'s permissions', async () => {
    const { org, admin: a } = await orgWithRoles(t);
    const byEmail = await createUser(db());
    const r = await request(t.app).post(admin(org.slug, '/members')).set(await as(a)).send({ email: byEmail.email.toUpperCase(), role: 'org_admin' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ user: { id: byEmail.id }, role: 'org_admin' });
    const again = await request(t.app).post(admin(org.slug, '/members')).set(await as(a)).send({ user_id: byEmail.id, role: 'org_viewer' });
    expect([again.status, again.body.code]).toEqual([409, 'ALREADY_MEMBER']);
    const owner = await request(t.app).post(admin(org.slug, '/members')).set(await as(a)).send({ user_id: (await createUser(db())).id, role: 'org_owner' });
    expect(owner.status).toBe(403);
    expect(owner.body).toMatchObject({ message: 'Requires permission: org.manage_children', required_permission: 'org.manage_children' });
    const nobody = await request(t.app).post(admin(org.slug, '/members')).set(await as(a)).send({ user_id: randomUUID(), role: 'org_viewer' });
    expect([nobody.status, nobody.body.message]).toEqual([404, 'User not found']);
    const both = await request(t.app).post(admin(org.slug, '/members')).set(await as(a)).send({ user_id: byEmail.id, email: byEmail.email, role: 'org_viewer' });
    expect(both.status).toBe(400);
  });

  it('when roles change, then an admin cannot touch an owner, and the last owner can neither be demoted nor removed', async () => {
    const { org, owner, admin: a, viewer } = await orgWithRoles(t);
    const demote = await request(t.app).patch(admin(org.slug, `/members/${owner.id}`)).set(await as(a)).send({ role: 'org_viewer' });
    expect([demote.status, demote.body.required_permission]).toEqual([403, 'org.manage_children']);
    const remove = await request(t.app).delete(admin(org.slug, `/members/${owner.id}`)).set(await as(a));
    expect(remove.status).toBe(403);
    const last = await request(t.app).patch(admin(org.slug, `/members/${owner.id}`)).set(await as(owner)).send({ role: 'org_admin' });
    expect([last.status, last.body.code]).toEqual([409, 'LAST_OWNER']);
    expect((await request(t.app).delete(admin(org.slug, `/members/${owner.id}`)).set(await as(owner))).status).toBe(409);
    const promote = await request(t.app).patch(admin(org.slug, `/members/${viewer.id}`)).set(await as(a)).send({ role: 'org_admin' });
    expect([promote.status, promote.body.data.role]).toEqual([200, 'org_admin']);
    const up = await request(t.app).patch(admin(org.slug, `/members/${viewer.id}`)).set(await as(owner)).send({ role: 'org_owner' });
    expect(up.status).toBe(200);
    // Two owners now: the first may step down.
    expect((await request(t.app).patch(admin(org.slug, `/members/${owner.id}`)).set(await as(owner)).send({ role: 'org_viewer' })).status).toBe(200);
    expect((await request(t.app).delete(admin(org.slug, `/members/${a.id}`)).set(await as(viewer))).status).toBe(204);
    expect((await request(t.app).delete(admin(org.slug, `/members/${a.id}`)).set(await as(viewer))).status).toBe(404);
  });

  it('when users are searched, then an exact email or a public name matches, no email is shown, and a private profile is found only by its email', async () => {
    const { org, admin: a, viewer } = await orgWithRoles(t);
    const tag = randomUUID().slice(0, 8);
    const pub = await createUser(db(), { name: `Grace ${tag}` });
    const priv = await createUser(db(), { name: `Hidden ${tag}` });
    await db()('users').where({ id: priv.id }).update({ profile_private: true });
    const byName = await request(t.app).get(admin(org.slug, `/users/search?q=${tag}`)).set(await as(a));
    expect(byName.body.data.map((u: any) => u.id)).toEqual([pub.id]);
    expect(byName.body.data[0]).toEqual({ id: pub.id, name: `Grace ${tag}`, avatar: null, profile_slug: expect.any(String), role: null });
    const byEmail = await request(t.app).get(admin(org.slug, `/users/search?q=${encodeURIComponent(priv.email)}`)).set(await as(a));
    expect(byEmail.body.data.map((u: any) => u.id)).toEqual([priv.id]);
    expect(JSON.stringify(byEmail.body)).not.toContain(priv.email);
    const member = await request(t.app).get(admin(org.slug, `/users/search?q=${encodeURIComponent(viewer.email)}`)).set(await as(a));
    expect(member.body.data[0].role).toBe('org_viewer');
    expect((await request(t.app).get(admin(org.slug, '/users/search?q=a')).set(await as(a))).body.data).toEqual([]);
  });

  it('when one user makes 31 member lookups and additions in a minute, then the 31st is 429 (one bucket for both)', async () => {
    const { org, admin: a } = await orgWithRoles(t);
    const h = await as(a);
    for (let i = 0; i < 15; i++) expect((await request(t.app).get(admin(org.slug, '/users/search?q=zz')).set(h)).status).toBe(200);
    for (let i = 0; i < 15; i++) {
      const u = await createUser(db());
      expect((await request(t.app).post(admin(org.slug, '/members')).set(h).send({ user_id: u.id, role: 'org_viewer' })).status).toBe(201);
    }
    const r = await request(t.app).post(admin(org.slug, '/members')).set(h).send({ user_id: (await createUser(db())).id, role: 'org_viewer' });
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ error: 'Too many member lookups. Please wait a minute and try again.', retryAfter: 60 });
    expect((await request(t.app).get(admin(org.slug, '/users/search?q=zz')).set(h)).status).toBe(429);
  });
});

describe('settings and children', () => {
  it('when settings are patched, then the given fields change (plain text) and the slug stays', async () => {
    const { org, admin: a } = await orgWithRoles(t);
    const r = await request(t.app).patch(admin(org.slug, '/settings')).set(await as(a)).send({ name: 'New <i>name</i>', website: null, country: 'de', slug: 'ignored' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ slug: org.slug, name: 'New name', website: null, country: 'DE' });
    expect((await request(t.app).patch(admin(org.slug, '/settings')).set(await as(a)).send({ website: 'javascript:alert(1)' })).status).toBe(400);
  });

  it('when children are added, then a repeat is 200, another parent or a loop 409, and a child the caller does not own 403', async () => {
    const owner = await createUser(db());
    const parent = await registerOrg(t, owner);
    const child = await registerOrg(t, owner);
    const add = (slug: string, id: string, u = owner) => as(u).then((h) => request(t.app).post(admin(slug, '/children')).set(h).send({ organization_id: id }));
    expect((await add(parent.slug, child.id)).status).toBe(201);
    expect((await add(parent.slug, child.id)).status).toBe(200);
    const list = await request(t.app).get(admin(parent.slug, '/children')).set(await as(owner));
    expect(list.body.data.map((o: any) => o.id)).toEqual([child.id]);
    const loop = await add(child.slug, parent.id);
    expect([loop.status, loop.body.code]).toEqual([409, 'ORG_CYCLE']);
    expect((await add(parent.slug, parent.id)).body.code).toBe('ORG_CYCLE');
    const second = await registerOrg(t, owner);
    expect((await add(second.slug, child.id)).body.code).toBe('ALREADY_HAS_PARENT');
    const stranger = await createUser(db());
    const theirs = await registerOrg(t, stranger);
    const taken = await add(parent.slug, theirs.id);
    expect([taken.status, taken.body.required_permission]).toEqual([403, 'org.manage_children']);
    await addMembership(db(), theirs.id, owner.id, 'org_admin');
    expect((await add(parent.slug, theirs.id)).status).toBe(403);
    expect((await add(parent.slug, randomUUID())).status).toBe(404);
  });
});
