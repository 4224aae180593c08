import dnsPromises from 'node:dns/promises';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { orgWithRoles } from '../helpers/organizations';
import { webhookApi, webhookReceiver } from '../helpers/webhook-receiver';

/** The /webhook-endpoints routes (docs/decisions/0017-outbound-webhooks.md): ownership, secrets, URL refusals. */
afterAll(closeDb);
afterEach(() => jest.restoreAllMocks());

const t = createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const db = () => testDb();
const rx = webhookReceiver();
const api = webhookApi(t);
const { signedIn, createEndpoint, ping } = api;
const at = rx.at;
const uniquePath = rx.path;
const endpointFor = (h: Record<string, string>, path: string, events?: string[]) => api.endpointFor(h, `${rx.base()}${path}`, events);
const strict = createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });

describe('endpoints', () => {
  it('when the endpoint receives a ping, then it verifies; after rotate-secret only the new secret verifies', async () => {
    const { h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path);
    expect((await ping(h, ep.id)).status).toBe(202);
    await t.runJobs();
    const first = new Webhook(ep.secret).verify(at(path)[0].body, at(path)[0].headers) as any;
    expect(first).toMatchObject({ type: 'ping', data: { endpoint_id: ep.id } });

    const rot = await request(t.app).post(`/api/v1/webhook-endpoints/${ep.id}/rotate-secret`).set(h);
    expect(rot.status).toBe(200);
    const secret = rot.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(ep.secret);
    await ping(h, ep.id);
    await t.runJobs();
    const second = at(path)[1];
    expect(() => new Webhook(secret).verify(second.body, second.headers)).not.toThrow();
    expect(() => new Webhook(ep.secret).verify(second.body, second.headers)).toThrow();
  });

  it('when listed, read and changed, then the secret never shows; delete answers 204 and the endpoint is gone', async () => {
    const { h } = await signedIn();
    const ep = await endpointFor(h, uniquePath('ok'), ['donation.paid', 'payout.paid']);
    const list = await request(t.app).get('/api/v1/webhook-endpoints').set(h);
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: any) => e.id)).toEqual([ep.id]);
    expect(list.body.pagination).toEqual({ limit: 20, offset: 0, total: 1 });
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const p = await request(t.app).patch(`/api/v1/webhook-endpoints/${ep.id}`).set(h).send({ events: ['*'], description: 'CRM sync' });
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ events: ['*'], description: 'CRM sync', status: 'enabled' });
    expect(p.body.data.secret).toBeUndefined();
    expect((await request(t.app).delete(`/api/v1/webhook-endpoints/${ep.id}`).set(h)).status).toBe(204);
    expect((await request(t.app).get(`/api/v1/webhook-endpoints/${ep.id}`).set(h)).status).toBe(404);
  });

  it("when another account touches an endpoint, then every route answers 404", async () => {
    const { h } = await signedIn();
    const ep = await endpointFor(h, uniquePath('ok'));
    const { h: other } = await signedIn();
    const id = ep.id;
    const calls = [
      request(t.app).get(`/api/v1/webhook-endpoints/${id}`).set(other),
      request(t.app).patch(`/api/v1/webhook-endpoints/${id}`).set(other).send({ status: 'disabled' }),
      request(t.app).delete(`/api/v1/webhook-endpoints/${id}`).set(other),
      request(t.app).post(`/api/v1/webhook-endpoints/${id}/rotate-secret`).set(other),
      request(t.app).post(`/api/v1/webhook-endpoints/${id}/test`).set(other),
      request(t.app).get(`/api/v1/webhook-endpoints/${id}/deliveries`).set(other),
      request(t.app).post(`/api/v1/webhook-endpoints/${id}/deliveries/00000000-0000-4000-8000-000000000000/retry`).set(other),
    ];
    for (const r of await Promise.all(calls)) expect([r.status, r.body.message]).toEqual([404, 'Webhook endpoint not found']);
    expect((await request(t.app).get('/api/v1/webhook-endpoints').set(other)).body.data).toEqual([]);
  });

  it('when an organization endpoint is managed, then org.update_settings is needed: admins see it, viewers get 403 on creation and 404 on reads', async () => {
    const { org, admin, viewer } = await orgWithRoles(t);
    const ha = await authHeaders(t, admin);
    const hv = await authHeaders(t, viewer);
    const r = await createEndpoint(ha, { url: `${rx.base()}/ok-org`, events: ['*'], organization_id: org.id });
    expect(r.status).toBe(201);
    const denied = await createEndpoint(hv, { url: `${rx.base()}/ok-org`, events: ['*'], organization_id: org.id });
    expect(denied.status).toBe(403);
    expect(denied.body.required_permission).toBe('org.update_settings');
    expect((await request(t.app).get(`/api/v1/webhook-endpoints/${r.body.data.id}`).set(hv)).status).toBe(404);
    const admin2 = await createUser(db());
    await db()('org_members').insert({ org_id: org.id, user_id: admin2.id, role: 'org_admin' });
    const seen = await request(t.app).get('/api/v1/webhook-endpoints').set(await authHeaders(t, admin2));
    expect(seen.body.data.map((e: any) => e.id)).toEqual([r.body.data.id]);
  });

  it('when not signed in, then 401; a malformed body is 400', async () => {
    expect((await request(t.app).get('/api/v1/webhook-endpoints')).status).toBe(401);
    expect((await request(t.app).post('/api/v1/webhook-endpoints').send({ url: `${rx.base()}/ok`, events: ['*'] })).status).toBe(401);
    const { h } = await signedIn();
    for (const body of [{ url: `${rx.base()}/ok`, events: [] }, { url: `${rx.base()}/ok`, events: ['nope'] }, { url: 'not a url', events: ['*'] }, { events: ['*'] }]) {
      expect((await createEndpoint(h, body)).status).toBe(400);
    }
  });
});

describe('URL refusals', () => {
  const refused = (r: request.Response) => [r.status, r.body.code];

  it('when the URL names a link-local or metadata address, then 400 WEBHOOK_URL_REFUSED even with WEBHOOK_ALLOW_PRIVATE', async () => {
    const { h } = await signedIn();
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/hook', 'http://[::ffff:169.254.169.254]/', 'http://0.0.0.0:8080/']) {
      expect(refused(await createEndpoint(h, { url, events: ['*'] }))).toEqual([400, 'WEBHOOK_URL_REFUSED']);
    }
  });

  it('when WEBHOOK_ALLOW_PRIVATE is off, then localhost, loopback and private addresses are refused', async () => {
    const { h } = await signedIn(strict);
    for (const url of ['http://localhost:8080/hook', 'http://127.0.0.1/hook', 'http://10.0.0.7/hook', 'http://[::1]/hook']) {
      expect(refused(await createEndpoint(h, { url, events: ['*'] }, strict))).toEqual([400, 'WEBHOOK_URL_REFUSED']);
    }
  });

  it('when a hostname resolves to a private address, then it is refused; one resolving to a public address is taken', async () => {
    const { h } = await signedIn(strict);
    const lookup = jest.spyOn(dnsPromises, 'lookup') as unknown as jest.Mock;
    lookup.mockImplementation(async (host: string) =>
      host === 'internal.partner.test' ? [{ address: '93.184.216.34', family: 4 }, { address: '192.168.1.20', family: 4 }] : [{ address: '93.184.216.34', family: 4 }],
    );
    expect(refused(await createEndpoint(h, { url: 'https://internal.partner.test/hook', events: ['*'] }, strict))).toEqual([400, 'WEBHOOK_URL_REFUSED']);
    expect((await createEndpoint(h, { url: 'https://hooks.partner.test/hook', events: ['*'] }, strict)).status).toBe(201);
  });
});
