import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = t.ctx.db;
let staff: TestUser;
let admin: TestUser;
let owner: TestUser;

beforeAll(async () => {
  staff = await createUser(db, { roles: ['user', 'staff'] });
  admin = await createUser(db, { roles: ['user', 'admin'] });
  owner = await createUser(db);
});

const as = async (u: TestUser) => authHeaders(t, u);

describe('GET /admin/review-queue', () => {
  test('when staff read the queue then pending campaigns oldest first, paged', async () => {
    const older = await createFundraiser(db, owner.id, { status: 'pending', submitted_at: new Date(Date.now() - 3_600_000) });
    const newer = await createFundraiser(db, owner.id, { status: 'pending', submitted_at: new Date() });
    await createFundraiser(db, owner.id, { status: 'active' });
    await createFundraiser(db, owner.id, { status: 'pending', deleted_at: new Date() });
    const res = await request(t.app).get('/api/v1/admin/review-queue?limit=100').set(await as(staff));
    expect(res.status).toBe(200);
    const ids = res.body.data.map((x: { id: string }) => x.id);
    expect(ids.indexOf(older.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(older.id)).toBeLessThan(ids.indexOf(newer.id));
    expect(res.body.data.every((x: { status: string }) => x.status === 'pending')).toBe(true);
    expect(res.body.pagination).toEqual({ limit: 100, offset: 0, total: ids.length });
    const item = res.body.data.find((x: { id: string }) => x.id === older.id);
    expect(item.trustStatus).toBeDefined();
    expect(item.submitted_at).toBeDefined();
    const page = await request(t.app).get('/api/v1/admin/review-queue?limit=1').set(await as(admin));
    expect(page.body.data).toHaveLength(1);
  });

  test('when a non-staff user or a guest asks then 403 with required_permission / 401', async () => {
    const res = await request(t.app).get('/api/v1/admin/review-queue').set(await as(owner));
    expect(res.status).toBe(403);
    expect(res.body.required_permission).toBe('platform.staff');
    expect((await request(t.app).get('/api/v1/admin/review-queue')).status).toBe(401);
  });
});

describe('approve and reject', () => {
  test('when staff approve a pending campaign then active with approved_at and publicly readable', async () => {
    const f = await createFundraiser(db, owner.id, { status: 'pending' });
    expect((await request(t.app).get(`/api/v1/fundraisers/${f.id}`)).status).toBe(404);
    const res = await request(t.app).post(`/api/v1/admin/fundraisers/${f.id}/approve`).set(await as(staff));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: f.id, status: 'active' });
    expect(res.body.data.approved_at).not.toBeNull();
    expect((await request(t.app).get(`/api/v1/fundraisers/${f.id}`)).status).toBe(200);
  });

  test('when staff reject a pending campaign then rejected and the owner sees the reasons', async () => {
    const f = await createFundraiser(db, owner.id, { status: 'pending' });
    const res = await request(t.app)
      .post(`/api/v1/admin/fundraisers/${f.id}/reject`)
      .set(await as(staff))
      .send({ reasons: ['Needs proof of need'] });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('rejected');
    const mine = await request(t.app).get(`/api/v1/fundraisers/${f.id}`).set(await as(owner));
    expect(mine.body.data.status).toBe('rejected');
    expect(mine.body.data.trustStatus.rejectionReasons).toContain('Needs proof of need');
    expect((await request(t.app).get(`/api/v1/fundraisers/${f.id}`)).status).toBe(404);
  });

  test('when the campaign is not pending then 409; unknown 404; bad id 400', async () => {
    const f = await createFundraiser(db, owner.id, { status: 'active' });
    const a = await request(t.app).post(`/api/v1/admin/fundraisers/${f.id}/approve`).set(await as(staff));
    expect(a.status).toBe(409);
    expect(a.body.code).toBe('INVALID_STATUS_TRANSITION');
    const r = await request(t.app).post(`/api/v1/admin/fundraisers/${f.id}/reject`).set(await as(staff)).send({ reasons: ['x'] });
    expect(r.status).toBe(409);
    expect((await request(t.app).post(`/api/v1/admin/fundraisers/${randomUUID()}/approve`).set(await as(staff))).status).toBe(404);
    expect((await request(t.app).post('/api/v1/admin/fundraisers/nope/approve').set(await as(staff))).status).toBe(400);
  });

  test('when reject has no reasons or wrong types then 400', async () => {
    const f = await createFundraiser(db, owner.id, { status: 'pending' });
    for (const b of [{}, { reasons: [] }, { reasons: 'spam' }, { reasons: [''] }]) {
      const res = await request(t.app).post(`/api/v1/admin/fundraisers/${f.id}/reject`).set(await as(staff)).send(b);
      expect(res.status).toBe(400);
    }
  });

  test('when staff approve or reject their own pending campaign then 403 SELF_REVIEW and it stays pending', async () => {
    const own = await createFundraiser(db, staff.id, { status: 'pending' });
    for (const path of ['approve', 'reject']) {
      const res = await request(t.app).post(`/api/v1/admin/fundraisers/${own.id}/${path}`).set(await as(staff)).send({ reasons: ['x'] });
      expect({ path, status: res.status, body: res.body }).toMatchObject({
        path,
        status: 403,
        body: { error: 'Forbidden', message: expect.any(String), code: 'SELF_REVIEW' },
      });
    }
    expect((await db('fundraisers').where({ id: own.id }).first()).status).toBe('pending');
    // Another staff member (here an admin) may decide on it.
    expect((await request(t.app).post(`/api/v1/admin/fundraisers/${own.id}/approve`).set(await as(admin))).status).toBe(200);
  });

  test('when a non-staff user approves or rejects then 403 with required_permission and nothing changes', async () => {
    const f = await createFundraiser(db, owner.id, { status: 'pending' });
    for (const path of ['approve', 'reject']) {
      const res = await request(t.app).post(`/api/v1/admin/fundraisers/${f.id}/${path}`).set(await as(owner)).send({ reasons: ['x'] });
      expect(res.status).toBe(403);
      expect(res.body.required_permission).toBe('platform.staff');
    }
    expect((await db('fundraisers').where({ id: f.id }).first()).status).toBe('pending');
  });
});
