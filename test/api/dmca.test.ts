import request from 'supertest';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { png, storageEnv } from '../helpers/media';

afterAll(closeDb);

const notice = (over: Record<string, unknown> = {}) => ({
  complainant_name: 'Ada Photographer',
  complainant_email: 'Ada@Example.org',
  work_description: 'My photo <b>"Harbour at dawn"</b>, published 2025.',
  infringing_urls: ['https://site.test/fundraisers/some-campaign'],
  good_faith: true,
  accuracy: true,
  signature: 'Ada Photographer',
  ...over,
});

let t: TestApp;
let staff: TestUser;
let owner: TestUser;
beforeAll(async () => {
  t = createTestApp({ env: storageEnv() });
  staff = await createUser(t.ctx.db, { roles: ['user', 'staff'] });
  owner = await createUser(t.ctx.db);
});

async function send(app: TestApp, body: unknown) {
  return request(app.app).post('/api/v1/dmca/notice').send(body as object);
}

describe('POST /dmca/notice', () => {
  test('when a complete notice is sent without signing in then 201 received, stored as plain text', async () => {
    const res = await send(t, notice());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: { id: expect.any(String), status: 'received' } });
    const row = await t.ctx.db('dmca_notices').where({ id: res.body.data.id }).first();
    expect(row).toMatchObject({ complainant_email: 'ada@example.org', work_description: 'My photo "Harbour at dawn", published 2025.', status: 'received', infringing_urls: ['https://site.test/fundraisers/some-campaign'] });
  });

  test('when good_faith or accuracy is not true, or any field is missing or malformed, then 400 with details', async () => {
    const bad = [
      notice({ good_faith: false }),
      notice({ accuracy: 'yes' }),
      notice({ accuracy: undefined }),
      notice({ complainant_email: 'not-an-email' }),
      notice({ infringing_urls: [] }),
      notice({ infringing_urls: ['javascript:alert(1)'] }),
      notice({ infringing_urls: Array.from({ length: 51 }, (_, i) => `https://x.test/${i}`) }),
      notice({ signature: '<i></i>' }),
    ];
    for (const body of bad) {
      // A fresh app per body: the strict limiter (5 a minute) counts refused notices too.
      const res = await send(createTestApp(), body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'Validation failed', details: expect.any(Array) });
    }
  });

  test('when features.dmca_workflow is off then 403 with feature_key', async () => {
    const app = createTestApp();
    jest.spyOn(app.ctx.flags, 'isEnabled').mockImplementation(async (k) => k !== 'features.dmca_workflow');
    const res = await send(app, notice());
    expect(res.status).toBe(403);
    expect(res.body.feature_key).toBe('features.dmca_workflow');
  });

  test('when an IP sends a sixth notice within a minute then 429 with the strict message', async () => {
    const app = createTestApp();
    for (let i = 0; i < 5; i++) expect((await send(app, notice())).status).toBe(201);
    const res = await send(app, notice());
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'Rate limit exceeded for sensitive operation.', retryAfter: 60 });
    expect(res.headers['ratelimit-policy']).toBe('5;w=60');
  });
});

describe('GET /admin/dmca-notices', () => {
  test('when staff list notices then newest first, paged, with total; others 401/403', async () => {
    const app = createTestApp();
    const first = (await send(app, notice({ complainant_name: 'First' }))).body.data.id;
    const second = (await send(app, notice({ complainant_name: 'Second' }))).body.data.id;
    const res = await request(app.app).get('/api/v1/admin/dmca-notices?limit=1').set(await authHeaders(app, staff));
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ limit: 1, offset: 0, total: expect.any(Number) });
    expect(res.body.pagination.total).toBeGreaterThanOrEqual(2);
    expect(res.body.data[0]).toMatchObject({ id: second, complainant_name: 'Second', status: 'received', takedowns: [], actioned_at: null });
    const next = await request(app.app).get('/api/v1/admin/dmca-notices?limit=1&offset=1').set(await authHeaders(app, staff));
    expect(next.body.data[0].id).toBe(first);
    expect((await request(app.app).get('/api/v1/admin/dmca-notices')).status).toBe(401);
    expect((await request(app.app).get('/api/v1/admin/dmca-notices').set(await authHeaders(app, owner))).status).toBe(403);
  });
});

describe('POST /admin/dmca-notices/{id}/takedown', () => {
  async function uploadTo(fid: string): Promise<{ id: string; url: string }> {
    const res = await request(t.app).post(`/api/v1/fundraisers/${fid}/media`).set(await authHeaders(t, owner)).attach('file', await png(40, 30), { filename: 'a.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    return res.body.data;
  }

  test('when staff take down an upload by id and an external URL then they leave the campaign, the file stops being served, and it is recorded', async () => {
    const f = await createFundraiser(t.ctx.db, owner.id);
    const cover = await uploadTo(f.id);
    const keep = await uploadTo(f.id);
    const external = 'https://elsewhere.test/stolen.jpg';
    await t.ctx.db('fundraisers').where({ id: f.id }).update({ cover_image: cover.url, cover_image_focal_x: 0.2, images: [cover.url, keep.url, external] });
    const id = (await send(t, notice())).body.data.id;
    const res = await request(t.app).post(`/api/v1/admin/dmca-notices/${id}/takedown`).set(await authHeaders(t, staff)).send({ fundraiser_id: f.id, media_ids: [cover.id], urls: [external] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ notice_id: id, fundraiser_id: f.id, status: 'actioned' });
    expect(res.body.data.removed.map((r: { url: string; media_id: string | null }) => [r.url, r.media_id]).sort()).toEqual([[cover.url, cover.id], [external, null]].sort());
    const row = await t.ctx.db('fundraisers').where({ id: f.id }).first();
    expect(row).toMatchObject({ cover_image: null, cover_image_focal_x: null, images: [keep.url] });
    expect(await t.ctx.db('media_uploads').where({ id: cover.id }).first()).toBeUndefined();
    expect((await request(t.app).get(new URL(cover.url).pathname)).status).toBe(404);
    expect((await request(t.app).get(new URL(keep.url).pathname)).status).toBe(200);
    const list = await request(t.app).get('/api/v1/admin/dmca-notices').set(await authHeaders(t, staff));
    const n = list.body.data.find((x: { id: string }) => x.id === id);
    expect(n).toMatchObject({ status: 'actioned', actioned_at: expect.any(String) });
    expect(n.takedowns).toHaveLength(2);
    expect(await t.ctx.db('audit_log').where({ action: 'dmca.takedown', target_id: f.id }).first()).toBeTruthy();
  });

  test("when an item is not the named campaign's (another campaign's upload, an unknown URL) then 400 and nothing changes", async () => {
    const f = await createFundraiser(t.ctx.db, owner.id);
    const other = await createFundraiser(t.ctx.db, owner.id);
    const mine = await uploadTo(f.id);
    const theirs = await uploadTo(other.id);
    await t.ctx.db('fundraisers').where({ id: f.id }).update({ images: [mine.url] });
    const id = (await send(createTestApp(), notice())).body.data.id;
    const h = await authHeaders(t, staff);
    const a = await request(t.app).post(`/api/v1/admin/dmca-notices/${id}/takedown`).set(h).send({ fundraiser_id: f.id, media_ids: [mine.id, theirs.id] });
    expect(a.status).toBe(400);
    const b = await request(t.app).post(`/api/v1/admin/dmca-notices/${id}/takedown`).set(h).send({ fundraiser_id: f.id, urls: [theirs.url] });
    expect(b.status).toBe(400);
    expect((await request(t.app).post(`/api/v1/admin/dmca-notices/${id}/takedown`).set(h).send({ fundraiser_id: f.id })).status).toBe(400);
    expect(await t.ctx.db('media_uploads').whereIn('id', [mine.id, theirs.id]).pluck('id')).toHaveLength(2);
    expect((await t.ctx.db('fundraisers').where({ id: f.id }).first()).images).toEqual([mine.url]);
    expect((await t.ctx.db('dmca_notices').where({ id }).first()).status).toBe('received');
  });

  test('when the notice or campaign is unknown then 404; a non-uuid id 400; a non-staff user 403', async () => {
    const f = await createFundraiser(t.ctx.db, owner.id);
    const id = (await send(createTestApp(), notice())).body.data.id;
    const h = await authHeaders(t, staff);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await request(t.app).post(`/api/v1/admin/dmca-notices/${unknown}/takedown`).set(h).send({ fundraiser_id: f.id, urls: ['https://x.test/a'] })).status).toBe(404);
    expect((await request(t.app).post(`/api/v1/admin/dmca-notices/${id}/takedown`).set(h).send({ fundraiser_id: unknown, urls: ['https://x.test/a'] })).status).toBe(404);
    expect((await request(t.app).post('/api/v1/admin/dmca-notices/nope/takedown').set(h).send({ fundraiser_id: f.id, urls: ['https://x.test/a'] })).status).toBe(400);
    expect((await request(t.app).post(`/api/v1/admin/dmca-notices/${id}/takedown`).set(await authHeaders(t, owner)).send({ fundraiser_id: f.id, urls: ['https://x.test/a'] })).status).toBe(403);
  });
});
