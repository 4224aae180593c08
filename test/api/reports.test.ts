import request from 'supertest';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

let t: TestApp;
beforeAll(() => {
  t = createTestApp();
});

const API = '/api/v1';

describe('POST /reports', () => {
  it('when a verified user reports a campaign, then 201 { id, status: received } and staff see it, text made plain', async () => {
    const me = await createUser(t.ctx.db);
    const f = await createFundraiser(t.ctx.db, (await createUser(t.ctx.db)).id);
    const r = await request(t.app)
      .post(`${API}/reports`)
      .set(await authHeaders(t, me))
      .send({ target_type: 'fundraiser', target_id: f.id, reason: 'scam', details: '<b>looks</b> fake' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ data: { id: expect.any(String), status: 'received' } });
    const staff = await createUser(t.ctx.db, { roles: ['user', 'staff'] });
    const list = await request(t.app).get(`${API}/admin/reports`).set(await authHeaders(t, staff));
    expect(list.status).toBe(200);
    const row = list.body.data.find((x: any) => x.id === r.body.data.id);
    expect(row).toMatchObject({ target_type: 'fundraiser', target_id: f.id, reason: 'scam', details: 'looks fake', reporter_user_id: me.id, status: 'received' });
    expect(list.body.pagination).toMatchObject({ limit: 20, offset: 0 });
  });

  it('when the reporter has not verified their email, then 403 EMAIL_NOT_VERIFIED', async () => {
    const me = await createUser(t.ctx.db, { email_verified: false });
    const r = await request(t.app).post(`${API}/reports`).set(await authHeaders(t, me)).send({ target_type: 'user', target_id: me.id, reason: 'x' });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'EMAIL_NOT_VERIFIED', action: 'verify_email' });
  });

  it('when the target is unknown, then 404; a bad type, id or empty reason, 400; no credential, 401', async () => {
    const me = await createUser(t.ctx.db);
    const h = await authHeaders(t, me);
    const send = (b: Record<string, unknown>) => request(t.app).post(`${API}/reports`).set(h).send(b);
    expect((await send({ target_type: 'comment', target_id: '00000000-0000-4000-8000-000000000000', reason: 'x' })).status).toBe(404);
    expect((await send({ target_type: 'planet', target_id: me.id, reason: 'x' })).status).toBe(400);
    expect((await send({ target_type: 'user', target_id: 'x', reason: 'x' })).status).toBe(400);
    expect((await send({ target_type: 'user', target_id: me.id, reason: '<i></i>' })).status).toBe(400);
    expect((await request(t.app).post(`${API}/reports`).send({ target_type: 'user', target_id: me.id, reason: 'x' })).status).toBe(401);
  });
});

describe('GET /admin/reports', () => {
  it('when a non-staff user asks, then 403 with required_permission', async () => {
    const me = await createUser(t.ctx.db);
    const r = await request(t.app).get(`${API}/admin/reports`).set(await authHeaders(t, me));
    expect(r.status).toBe(403);
    expect(r.body.required_permission).toEqual(expect.any(String));
  });
});
