import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const db = testDb();

/** A TCP listener on 127.0.0.1 (a stand-in SMTP or processor endpoint) and a port nothing listens on. */
async function listener(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}
async function closedPort(): Promise<number> {
  const { server, port } = await listener();
  await new Promise((r) => server.close(r));
  return port;
}

const components = (body: { data: { components: Array<{ name: string; status: string }> } }) =>
  Object.fromEntries(body.data.components.map((c) => [c.name, c.status]));

describe('GET /trust/status', () => {
  it('when every component answers, then operational with the four components, and the answer is cached', async () => {
    const t = createTestApp();
    const res = await request(t.app).get('/api/v1/trust/status').expect(200);
    expect(res.body.data).toEqual({
      status: 'operational',
      components: [
        { name: 'database', status: 'operational' },
        { name: 'processor', status: 'operational' },
        { name: 'mail', status: 'operational' },
        { name: 'queue', status: 'operational' },
      ],
      updated_at: expect.any(String),
    });
    // A stalled job now would change the answer, but the cached one is served.
    await db.raw(`select graphile_worker.add_job('trust-test', '{}'::json, run_at => now() - interval '10 minutes')`);
    const again = await request(t.app).get('/api/v1/trust/status').expect(200);
    expect(again.body).toEqual(res.body);
    await db.raw(`delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'trust-test')`);
  });

  it('when a due job has waited over 5 minutes, then the queue is degraded; over 30, an outage; the whole is degraded', async () => {
    await db.raw(`select graphile_worker.add_job('trust-test', '{}'::json, run_at => now() - interval '10 minutes')`);
    const late = await request(createTestApp().app).get('/api/v1/trust/status').expect(200);
    expect(components(late.body).queue).toBe('degraded');
    expect(late.body.data.status).toBe('degraded');
    await db.raw(`update graphile_worker._private_jobs set run_at = now() - interval '45 minutes' where task_id = (select id from graphile_worker._private_tasks where identifier = 'trust-test')`);
    const stalled = await request(createTestApp().app).get('/api/v1/trust/status').expect(200);
    expect(components(stalled.body).queue).toBe('outage');
    expect(stalled.body.data.status).toBe('degraded');
    // A dead job (attempts used up) is not waiting.
    await db.raw(`update graphile_worker._private_jobs set attempts = 5, max_attempts = 5 where task_id = (select id from graphile_worker._private_tasks where identifier = 'trust-test')`);
    expect(components((await request(createTestApp().app).get('/api/v1/trust/status').expect(200)).body).queue).toBe('operational');
    await db.raw(`delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'trust-test')`);
  });

  it('when the SMTP server refuses connections, then mail is an outage; when it accepts, operational', async () => {
    const down = await request(createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${await closedPort()}` } }).app).get('/api/v1/trust/status').expect(200);
    expect(components(down.body).mail).toBe('outage');
    expect(down.body.data.status).toBe('degraded');
    const { server, port } = await listener();
    try {
      const up = await request(createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } }).app).get('/api/v1/trust/status').expect(200);
      expect(components(up.body).mail).toBe('operational');
    } finally {
      server.close();
    }
  });

  it('when Stripe is configured and its API cannot be reached, then the processor is an outage', async () => {
    const env = { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_API_URL: `http://127.0.0.1:${await closedPort()}` };
    const res = await request(createTestApp({ env }).app).get('/api/v1/trust/status').expect(200);
    expect(components(res.body).processor).toBe('outage');
  });
});

describe('GET /users/me/publish-readiness', () => {
  it('when signed out, then 401', async () => {
    await request(createTestApp().app).get('/api/v1/users/me/publish-readiness').expect(401);
  });

  it('when the profile misses a name, a verified email and a private contact, then each is an open blocker and not ready', async () => {
    const t = createTestApp();
    const u = await createUser(db, { name: null, email_verified: false });
    const res = await request(t.app).get('/api/v1/users/me/publish-readiness').set(await authHeaders(t, u)).expect(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.body.data.ready).toBe(false);
    expect(res.body.data.migration_pending).toBe(false);
    const byKey = Object.fromEntries(res.body.data.checklist.map((c: { key: string }) => [c.key, c]));
    expect(byKey.profile_name).toEqual({ key: 'profile_name', ok: false, blocker: true, message: 'Add your name to your profile.' });
    expect(byKey.email_verified).toMatchObject({ ok: false, blocker: true });
    expect(byKey.private_contact_verified).toMatchObject({ ok: false, blocker: true });
    expect(byKey.avatar).toMatchObject({ ok: false, blocker: false });
    expect(byKey.profile_slug).toMatchObject({ ok: true, blocker: false });
  });

  it('when the checklist says ready, then the publish gate lets the campaign through, and when not, the gate refuses for the same reasons', async () => {
    const t = createTestApp();
    const ready = await createUser(db, { private_contact_verified: true });
    const r1 = await request(t.app).get('/api/v1/users/me/publish-readiness').set(await authHeaders(t, ready)).expect(200);
    expect(r1.body.data.ready).toBe(true);
    const draft = await createFundraiser(db, ready.id, { status: 'draft', approved_at: null });
    const published = await request(t.app).patch(`/api/v1/fundraisers/${draft.id}`).set(await authHeaders(t, ready)).send({ status: 'active' });
    expect(published.status).toBe(200);
    expect(['active', 'pending']).toContain(published.body.data.status);

    const notReady = await createUser(db, { name: null });
    const r2 = await request(t.app).get('/api/v1/users/me/publish-readiness').set(await authHeaders(t, notReady)).expect(200);
    const open = r2.body.data.checklist.filter((c: { ok: boolean; blocker: boolean }) => c.blocker && !c.ok).map((c: { key: string }) => c.key);
    expect(open.sort()).toEqual(['private_contact_verified', 'profile_name']);
    const d2 = await createFundraiser(db, notReady.id, { status: 'draft', approved_at: null });
    const refused = await request(t.app).patch(`/api/v1/fundraisers/${d2.id}`).set(await authHeaders(t, notReady)).send({ status: 'active' }).expect(403);
    expect(refused.body.reasons).toEqual(expect.arrayContaining(['profile_name_missing', 'private_contact_not_verified']));
    expect(refused.body.reasons).not.toContain('email_not_verified');
  });
});
