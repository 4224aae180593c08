import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { addMembership, freshIp, registerOrg, TINY_PDF } from '../helpers/organizations';

afterAll(closeDb);

const t = createTestApp({ env: { TRUST_PROXY: 'loopback', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'orgs-')) } });
const db = () => testDb();
const api = (p: string) => `/api/v1${p}`;

async function as(u: TestUser) {
  return { ...(await authHeaders(t, u)), 'X-Forwarded-For': freshIp() };
}

describe('POST /organizations', () => {
  it('when a verified user registers, then 201 with the org, the creator is its org_owner, and private members stay unnamed publicly', async () => {
    const u = await createUser(db());
    const r = await request(t.app).post(api('/organizations')).set(await as(u)).send({
      name: 'Save <b>the</b> Rivers', description: '<script>x()</script>Clean water', website: 'https://rivers.example', country: 'us',
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String), slug: 'save-the-rivers', name: 'Save the Rivers', description: 'Clean water',
      website: 'https://rivers.example', logo: null, country: 'US', parent_id: null, verified: false, created_at: expect.any(String),
    });
    const members = await request(t.app).get(api(`/organizations/${r.body.data.slug}/members`));
    expect(members.body.data).toEqual([{ user: { id: u.id, name: u.name, avatar: null, profile_slug: expect.any(String) }, role: 'org_owner', joined_at: expect.any(String) }]);
    expect(JSON.stringify(members.body)).not.toContain(u.email);
    // A member with a private profile is not named publicly (org admin still lists them).
    const hidden = await createUser(db());
    await db()('users').where({ id: hidden.id }).update({ profile_private: true });
    await addMembership(db(), r.body.data.id, hidden.id, 'org_viewer');
    const again = await request(t.app).get(api(`/organizations/${r.body.data.id}/members`));
    expect(again.body.data.map((m: any) => m.user.id)).toEqual([u.id]);
    const inside = await request(t.app).get(api(`/org-admin/${r.body.data.slug}/members`)).set(await as(u));
    expect(inside.body.data.map((m: any) => m.user.id)).toEqual([u.id, hidden.id]);
  });

  it('when the derived slug is taken, then a suffix keeps it unique; a taken explicit slug is 409 SLUG_TAKEN; a uuid-shaped slug 400', async () => {
    const u = await createUser(db());
    const name = `Helping Hands ${randomUUID().slice(0, 6)}`;
    const a = await request(t.app).post(api('/organizations')).set(await as(u)).send({ name });
    const b = await request(t.app).post(api('/organizations')).set(await as(u)).send({ name });
    expect(b.body.data.slug).toBe(`${a.body.data.slug}-2`);
    const c = await request(t.app).post(api('/organizations')).set(await as(u)).send({ name: 'x', slug: a.body.data.slug });
    expect([c.status, c.body.code]).toEqual([409, 'SLUG_TAKEN']);
    const d = await request(t.app).post(api('/organizations')).set(await as(u)).send({ name: 'x', slug: randomUUID() });
    expect(d.status).toBe(400);
  });

  it('when the email is unverified, then 403 EMAIL_NOT_VERIFIED; signed out 401; a blank name 400', async () => {
    const u = await createUser(db(), { email_verified: false });
    const r = await request(t.app).post(api('/organizations')).set(await as(u)).send({ name: 'Nope' });
    expect([r.status, r.body.code]).toEqual([403, 'EMAIL_NOT_VERIFIED']);
    expect((await request(t.app).post(api('/organizations')).send({ name: 'Nope' })).status).toBe(401);
    const v = await createUser(db());
    expect((await request(t.app).post(api('/organizations')).set(await as(v)).send({ name: '<b></b>' })).status).toBe(400);
  });

  it('when one IP and account register a sixth organization in an hour, then 429 with the spec message', async () => {
    const u = await createUser(db());
    const h = { ...(await authHeaders(t, u)), 'X-Forwarded-For': '10.99.99.1' };
    for (let i = 0; i < 5; i++) expect((await request(t.app).post(api('/organizations')).set(h).send({ name: `Burst ${i}` })).status).toBe(201);
    const r = await request(t.app).post(api('/organizations')).set(h).send({ name: 'Burst 6' });
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ error: 'Too many organization registrations. Please try again later.', retryAfter: 3600 });
  });

  it('when parent_id is given, then it needs org.manage_children in the parent (admin 403, unknown 404, owner 201)', async () => {
    const owner = await createUser(db());
    const parent = await registerOrg(t, owner);
    const admin = await createUser(db());
    await addMembership(db(), parent.id, admin.id, 'org_admin');
    const denied = await request(t.app).post(api('/organizations')).set(await as(admin)).send({ name: 'Child', parent_id: parent.id });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ message: 'Requires permission: org.manage_children', required_permission: 'org.manage_children' });
    const unknown = await request(t.app).post(api('/organizations')).set(await as(owner)).send({ name: 'Child', parent_id: randomUUID() });
    expect([unknown.status, unknown.body.message]).toEqual([404, 'Organization not found']);
    const ok = await request(t.app).post(api('/organizations')).set(await as(owner)).send({ name: 'Child', parent_id: parent.id });
    expect([ok.status, ok.body.data.parent_id]).toEqual([201, parent.id]);
  });
});

describe('public organization reads', () => {
  it('when listed with q, then matching organizations are paged; by id and by slug read the same; unknown 404', async () => {
    const u = await createUser(db());
    const tag = randomUUID().slice(0, 8);
    const a = await registerOrg(t, u, { name: `Zebra ${tag} One` });
    await registerOrg(t, u, { name: `Zebra ${tag} Two` });
    const list = await request(t.app).get(api(`/organizations?q=zebra ${tag}&limit=1`));
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ limit: 1, offset: 0, total: 2 });
    expect(list.body.data[0].id).toBe(a.id);
    const pct = await request(t.app).get(api('/organizations?q=%25%25%25'));
    expect(pct.body.data).toEqual([]);
    const byId = await request(t.app).get(api(`/organizations/${a.id}`));
    const bySlug = await request(t.app).get(api(`/organizations/${a.slug}`));
    expect(byId.body).toEqual(bySlug.body);
    for (const bad of [randomUUID(), 'no-such-org-x', 'Bad_Slug']) {
      const r = await request(t.app).get(api(`/organizations/${bad}`));
      expect([r.status, r.body.message]).toEqual([404, 'Organization not found']);
    }
  });

  it('when stats are read, then they count its publicly readable campaigns, their donors and its members', async () => {
    const u = await createUser(db());
    const org = await registerOrg(t, u);
    const live = await createFundraiser(db(), u.id, { org_id: org.id });
    const priv = await createFundraiser(db(), u.id, { org_id: org.id, visibility: 'private' });
    await createFundraiser(db(), u.id, { org_id: org.id, status: 'draft' });
    const donor = await createUser(db());
    await createGift(db(), { fundraiserId: live.id, donorUserId: donor.id, amount: 3000 });
    await createGift(db(), { fundraiserId: live.id, donorUserId: donor.id, amount: 2000 });
    await createGift(db(), { fundraiserId: priv.id, amount: 9000 });
    const r = await request(t.app).get(api(`/organizations/${org.slug}/stats`));
    expect(r.body).toEqual({ data: { total_raised_cents: 5000, fundraiser_count: 1, donor_count: 1, member_count: 1 } });
  });

  it('when updates are read, then live updates of its public campaigns come newest first; unlisted ones are never named', async () => {
    const u = await createUser(db());
    const org = await registerOrg(t, u);
    const f = await createFundraiser(db(), u.id, { org_id: org.id, is_project: true });
    const hidden = await createFundraiser(db(), u.id, { org_id: org.id, status: 'draft' });
    const unlisted = await createFundraiser(db(), u.id, { org_id: org.id, visibility: 'unlisted', title: 'Quiet appeal' });
    const at = (s: number) => new Date(Date.now() - s * 1000);
    await db()('project_updates').insert([
      { fundraiser_id: f.id, author_user_id: u.id, title: 'Old', body: 'first', created_at: at(60) },
      { fundraiser_id: f.id, author_user_id: u.id, title: 'New', body: 'second', created_at: at(10) },
      { fundraiser_id: f.id, author_user_id: u.id, title: 'Gone', body: 'withdrawn', created_at: at(5), deleted_at: at(1) },
      { fundraiser_id: hidden.id, author_user_id: u.id, title: 'Draft', body: 'not public', created_at: at(1) },
      { fundraiser_id: unlisted.id, author_user_id: u.id, title: 'Unlisted', body: 'link only', created_at: at(2) },
    ]);
    const r = await request(t.app).get(api(`/organizations/${org.id}/updates`));
    expect(r.body.data.map((x: any) => x.title)).toEqual(['New', 'Old']);
    // An unlisted campaign is readable with its link only: a public listing never names it.
    expect(JSON.stringify(r.body)).not.toContain(unlisted.slug);
    expect(r.body.data[0]).toMatchObject({ type: 'update', fundraiser: { id: f.id, slug: f.slug }, like_count: 0 });
    expect(r.body.pagination.total).toBe(2);
  });

  it('when documents are uploaded, then only public ones are listed and downloadable publicly; org admin reads both', async () => {
    const u = await createUser(db());
    const org = await registerOrg(t, u);
    const up = (name: string, pub: boolean) =>
      as(u).then((h) =>
        request(t.app).post(api(`/org-admin/${org.slug}/documents?name=${name}&is_public=${pub}`)).set(h).set('Content-Type', 'application/pdf').send(TINY_PDF),
      );
    const pub = await up('Annual report', true);
    const priv = await up('Bank letter', false);
    expect(pub.status).toBe(201);
    expect(pub.body.data).toMatchObject({ name: 'Annual report', content_type: 'application/pdf', bytes: TINY_PDF.length, is_public: true });
    expect(priv.body.data.url).toBeNull();
    // Stored through the storage port (shared by every replica), under a key the API never hands out.
    const row = await db()('org_documents').where({ id: priv.body.data.id }).first();
    expect(row.storage_key).toMatch(new RegExp(`^org-documents/${org.id}/[0-9a-f-]{36}\\.pdf$`));
    expect(row.storage_key).not.toContain(priv.body.data.id);
    expect(Buffer.compare((await t.ctx.storage.read(row.storage_key, 1 << 20))!, TINY_PDF)).toBe(0);
    expect(JSON.stringify([pub.body, priv.body])).not.toContain(row.storage_key);
    const list = await request(t.app).get(api(`/organizations/${org.slug}/documents/public`));
    expect(list.body.data.map((d: any) => d.name)).toEqual(['Annual report']);
    const file = await request(t.app).get(pub.body.data.url).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect([file.status, file.headers['content-type']]).toEqual([200, 'application/pdf']);
    expect(Buffer.compare(file.body, TINY_PDF)).toBe(0);
    expect((await request(t.app).get(api(`/organizations/${org.id}/documents/${priv.body.data.id}`))).status).toBe(404);
    const admin = await request(t.app).get(api(`/org-admin/${org.slug}/documents`)).set(await as(u));
    expect(admin.body.data.map((d: any) => d.name).sort()).toEqual(['Annual report', 'Bank letter']);
    expect((await request(t.app).get(api(`/org-admin/${org.slug}/documents/${priv.body.data.id}`)).set(await as(u))).status).toBe(200);
  });

  it('when a private document is uploaded, then no /media/ URL serves it and only a current member reads it (private, no-store)', async () => {
    const owner = await createUser(db());
    const member = await createUser(db());
    const org = await registerOrg(t, owner);
    await addMembership(db(), org.id, member.id, 'org_viewer');
    const priv = await request(t.app)
      .post(api(`/org-admin/${org.slug}/documents?name=Bank%20letter&is_public=false`))
      .set(await as(owner)).set('Content-Type', 'application/pdf').send(TINY_PDF);
    expect(priv.status).toBe(201);
    const docId = priv.body.data.id;
    const row = await db()('org_documents').where({ id: docId }).first();
    // Neither the path built from ids a member sees, nor the stored key itself, nor a document
    // stored under the old id-based key (existing uploads) is served under /media/.
    const legacyKey = `org-documents/${org.id}/${randomUUID()}.pdf`;
    await t.ctx.storage.put(legacyKey, TINY_PDF, { contentType: 'application/pdf' });
    for (const key of [`org-documents/${org.id}/${docId}.pdf`, row.storage_key, legacyKey]) {
      const r = await request(t.app).get(`/media/${key}`);
      expect([key, r.status]).toEqual([key, 404]);
      expect(r.headers['cache-control'] ?? '').not.toContain('public');
    }
    const url = api(`/org-admin/${org.slug}/documents/${docId}`);
    const read = await request(t.app).get(url).set(await as(member));
    expect([read.status, read.headers['cache-control']]).toEqual([200, 'private, no-store']);
    await db()('org_members').where({ org_id: org.id, user_id: member.id }).del();
    expect([403, 404]).toContain((await request(t.app).get(url).set(await as(member))).status);
    expect((await request(t.app).get(url)).status).toBe(401);
  });

  it('when a document is not a PDF, then 400; another media type 415; over 10 MB 413', async () => {
    const u = await createUser(db());
    const org = await registerOrg(t, u);
    const url = api(`/org-admin/${org.slug}/documents?name=x`);
    const notPdf = await request(t.app).post(url).set(await as(u)).set('Content-Type', 'application/pdf').send(Buffer.from('hello'));
    expect([notPdf.status, notPdf.body.code]).toEqual([400, 'UNSUPPORTED_DOCUMENT']);
    expect((await request(t.app).post(url).set(await as(u)).set('Content-Type', 'text/plain').send('%PDF-1.4')).status).toBe(415);
    const big = Buffer.concat([TINY_PDF, Buffer.alloc(10 * 1024 * 1024)]);
    const r = await request(t.app).post(url).set(await as(u)).set('Content-Type', 'application/pdf').send(big);
    expect(r.status).toBe(413);
    expect(await db()('org_documents').where({ org_id: org.id })).toHaveLength(0);
  });
});
