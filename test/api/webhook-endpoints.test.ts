import dnsPromises from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { orgWithRoles } from '../helpers/organizations';
import { deliver, stripeEvent } from '../helpers/stripe';
import { chargeRefunded, piSucceeded, startGift } from './donations-fixtures';
import { WEBHOOK_DELIVERY_QUEUE } from '../../src/modules/webhook-endpoints';
import { deliveryHandler, retryDelayMs } from '../../src/modules/webhook-endpoints/webhook-endpoints.delivery';

afterAll(closeDb);

const t = createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const strict = createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
const db = () => testDb();

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** A local receiver: `/ok` answers 204, `/fail` 500, `/flaky` 500 once then 200, `/hang` never answers. */
const received: Received[] = [];
let flakyFailures = 0;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const path = req.url ?? '/';
    received.push({ path, headers: req.headers as Record<string, string>, body, at: Date.now() });
    if (path.startsWith('/hang')) return;
    if (path.startsWith('/fail')) return void res.writeHead(500).end('nope');
    if (path.startsWith('/flaky') && flakyFailures++ === 0) return void res.writeHead(500).end('later');
    res.writeHead(path.startsWith('/ok') ? 204 : 200).end();
  });
});
let base = '';
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
afterEach(() => jest.restoreAllMocks());

const at = (path: string) => received.filter((r) => r.path === path);

async function signedIn(app = t) {
  const u = await createUser(db());
  return { u, h: await authHeaders(app, u) };
}

async function createEndpoint(h: Record<string, string>, body: Record<string, unknown>, app = t) {
  return request(app.app).post('/api/v1/webhook-endpoints').set(h).send(body);
}

async function endpointFor(h: Record<string, string>, path: string, events: string[] = ['*']) {
  const r = await createEndpoint(h, { url: `${base}${path}`, events });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; secret: string };
}

const deliveries = async (h: Record<string, string>, id: string, q = '') =>
  request(t.app).get(`/api/v1/webhook-endpoints/${id}/deliveries${q}`).set(h);

/** Scheduled retries become due now (the job engine's run-at; the schedule itself is checked on next_attempt_at). */
const makeRetriesDue = () => db()('jobs').where({ queue: WEBHOOK_DELIVERY_QUEUE }).whereNull('done_at').update({ run_at: db().fn.now() });

const uniquePath = (name: string) => `/${name}-${Math.random().toString(36).slice(2, 10)}`;

describe('deliveries', () => {
  it('when a gift on the caller\'s campaign is paid, then the endpoint receives a donation.paid the package verifies, without email or processor ids', async () => {
    const { u, h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path, ['donation.paid']);
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const f = await createFundraiser(db(), u.id);
    const gift = await createGift(db(), { fundraiserId: f.id, amount: 2500, tip: 300, message: 'Go team', donorEmail: 'donor@example.test' });
    await t.runJobs();

    const [got] = at(path);
    expect(at(path)).toHaveLength(1);
    const event = new Webhook(ep.secret).verify(got.body, got.headers) as any;
    const row = await db()('donations').where({ id: gift.id }).first();
    expect(event).toEqual({
      type: 'donation.paid',
      timestamp: expect.any(String),
      data: {
        donation_id: gift.id,
        fundraiser_id: f.id,
        amount_cents: 2500,
        tip_cents: 300,
        currency: 'USD',
        donor_name: 'Test Donor',
        message: 'Go team',
        paid_at: new Date(row.paid_at).toISOString(),
      },
    });
    expect(got.body).not.toMatch(/donor@example\.test|cs_test_|receipt/);
    expect(got.headers['content-type']).toBe('application/json');

    const log = await deliveries(h, ep.id);
    expect(log.status).toBe(200);
    expect(log.body.data).toEqual([
      { id: expect.any(String), event_id: got.headers['webhook-id'], event_type: 'donation.paid', status: 'succeeded', attempts: 1, last_status_code: 204, next_attempt_at: null, created_at: expect.any(String) },
    ]);
  });

  it('when the processor settles and then refunds a gift, then donation.paid (with message, paid_at) and donation.refunded arrive, and no email or processor id', async () => {
    const { u, h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path, ['donation.paid', 'donation.refunded']);
    const f = await createFundraiser(db(), u.id);
    const g = await startGift(t, f.id, 4_000, 0, { message: 'Bravo', donor_name: 'Ada' });
    expect((await deliver(t, piSucceeded(g))).status).toBe(200);
    await t.runJobs();
    expect((await deliver(t, chargeRefunded(g, 4_000))).status).toBe(200);
    await t.runJobs();
    const events = at(path).map((r) => new Webhook(ep.secret).verify(r.body, r.headers) as any);
    expect(events.map((e) => e.type)).toEqual(['donation.paid', 'donation.refunded']);
    const row = await db()('donations').where({ id: g.donation_id }).first();
    expect(events[0].data).toEqual({
      donation_id: g.donation_id,
      fundraiser_id: f.id,
      amount_cents: 4_000,
      tip_cents: 0,
      currency: 'USD',
      donor_name: 'Ada',
      message: 'Bravo',
      paid_at: new Date(row.paid_at).toISOString(),
    });
    expect(events[1].data).toEqual({ donation_id: g.donation_id, fundraiser_id: f.id, refunded_cents: 4_000, fully: true });
    expect(at(path).map((r) => r.body).join()).not.toMatch(/guest@example\.test|pi_|ch_/);
  });

  it("when a payout reaches the holder's bank, then payout.paid goes to the holder's endpoint", async () => {
    const { h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path, ['payout.paid']);
    const r = await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({});
    const account = r.body.data.account_id as string;
    const acct = { id: account, object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true };
    expect((await deliver(t, stripeEvent('account.updated', acct, { account }))).status).toBe(200);
    const po = { id: `po_test_${Math.random().toString(36).slice(2, 10)}`, object: 'payout', amount: 1234, currency: 'usd', status: 'paid', arrival_date: Math.floor(Date.now() / 1000) };
    expect((await deliver(t, stripeEvent('payout.paid', po, { account }))).status).toBe(200);
    await t.runJobs();
    const events = at(path).map((x) => new Webhook(ep.secret).verify(x.body, x.headers) as any);
    expect(events).toEqual([{ type: 'payout.paid', timestamp: expect.any(String), data: { payout_id: expect.any(String), amount_cents: 1234, currency: 'usd' } }]);
  });

  it('when the donor gave anonymously, then donor_name is null', async () => {
    const { u, h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path, ['donation.paid']);
    const f = await createFundraiser(db(), u.id);
    await createGift(db(), { fundraiserId: f.id, anonymous: true });
    await t.runJobs();
    const event = new Webhook(ep.secret).verify(at(path)[0].body, at(path)[0].headers) as any;
    expect(event.data.donor_name).toBeNull();
  });

  it('when events happen on campaigns the owner does not hold, or on types it did not ask for, then the endpoint receives nothing', async () => {
    const { u, h } = await signedIn();
    const other = await createUser(db());
    const path = uniquePath('ok');
    await endpointFor(h, path, ['donation.refunded']);
    await createGift(db(), { fundraiserId: (await createFundraiser(db(), u.id)).id });
    await createGift(db(), { fundraiserId: (await createFundraiser(db(), other.id)).id });
    await t.runJobs();
    expect(at(path)).toHaveLength(0);
  });

  it("when a campaign is an organization's, then the organization's endpoint receives its gifts and the creator's own endpoint does not", async () => {
    const { org, owner, admin } = await orgWithRoles(t);
    const ha = await authHeaders(t, admin);
    const orgPath = uniquePath('ok');
    const mine = uniquePath('ok');
    const r = await createEndpoint(ha, { url: `${base}${orgPath}`, events: ['donation.paid'], organization_id: org.id });
    expect(r.status).toBe(201);
    expect(r.body.data.organization_id).toBe(org.id);
    await endpointFor(await authHeaders(t, owner), mine, ['donation.paid']);
    const f = await createFundraiser(db(), owner.id, { org_id: org.id });
    await createGift(db(), { fundraiserId: f.id });
    await t.runJobs();
    expect(at(orgPath)).toHaveLength(1);
    expect(at(mine)).toHaveLength(0);
  });

  it('when an endpoint answers 500, then it is retried about 5 s later with the same webhook-id while another endpoint already succeeded', async () => {
    const { u, h } = await signedIn();
    const flaky = uniquePath('flaky');
    const ok = uniquePath('ok');
    flakyFailures = 0;
    const a = await endpointFor(h, flaky, ['donation.paid']);
    const b = await endpointFor(h, ok, ['donation.paid']);
    await createGift(db(), { fundraiserId: (await createFundraiser(db(), u.id)).id });
    const started = Date.now();
    await t.runJobs();

    expect(at(ok)).toHaveLength(1);
    expect((await deliveries(h, b.id)).body.data[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    const first = (await deliveries(h, a.id)).body.data[0];
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
    const wait = Date.parse(first.next_attempt_at) - started;
    expect(wait).toBeGreaterThan(3_000);
    expect(wait).toBeLessThan(15_000);

    await makeRetriesDue();
    await t.runJobs();
    const tries = at(flaky);
    expect(tries).toHaveLength(2);
    expect(tries[1].headers['webhook-id']).toBe(tries[0].headers['webhook-id']);
    expect(() => new Webhook(a.secret).verify(tries[1].body, tries[1].headers)).not.toThrow();
    expect((await deliveries(h, a.id)).body.data[0]).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200, next_attempt_at: null });
    expect(at(ok)).toHaveLength(1);
  });

  it('when a delivery is retried by hand, then it is sent again now with the same webhook-id; an unknown delivery is 404', async () => {
    const { h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path);
    expect((await request(t.app).post(`/api/v1/webhook-endpoints/${ep.id}/test`).set(h)).status).toBe(202);
    await t.runJobs();
    const [d] = (await deliveries(h, ep.id)).body.data;
    const r = await request(t.app).post(`/api/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`).set(h);
    expect(r.status).toBe(202);
    await t.runJobs();
    expect(at(path).map((x) => x.headers['webhook-id'])).toEqual([d.event_id, d.event_id]);
    expect((await deliveries(h, ep.id)).body.data[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
    const unknown = await request(t.app).post(`/api/v1/webhook-endpoints/${ep.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`).set(h);
    expect(unknown.status).toBe(404);
  });

  it('when someone comments on the campaign, then comment.created arrives with the comment and campaign ids', async () => {
    const { u, h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path, ['comment.created']);
    const f = await createFundraiser(db(), u.id);
    const { h: fan } = await signedIn();
    const c = await request(t.app).post(`/api/v1/fundraisers/${f.id}/comments`).set(fan).send({ body: 'Good luck!' });
    expect(c.status).toBe(201);
    await t.runJobs();
    const event = new Webhook(ep.secret).verify(at(path)[0].body, at(path)[0].headers) as any;
    expect(event).toMatchObject({ type: 'comment.created', data: { comment_id: c.body.data.id, fundraiser_id: f.id, parent_id: null } });
  });

  it('when a disabled endpoint would receive an event, then nothing is delivered', async () => {
    const { u, h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path);
    const p = await request(t.app).patch(`/api/v1/webhook-endpoints/${ep.id}`).set(h).send({ status: 'disabled' });
    expect(p.body.data.status).toBe('disabled');
    await createGift(db(), { fundraiserId: (await createFundraiser(db(), u.id)).id });
    await t.runJobs();
    expect(at(path)).toHaveLength(0);
  });

  it('when the deliveries log is paged, then limit and offset apply and the total counts them all', async () => {
    const { h } = await signedIn();
    const ep = await endpointFor(h, uniquePath('ok'));
    for (let i = 0; i < 3; i++) await request(t.app).post(`/api/v1/webhook-endpoints/${ep.id}/test`).set(h);
    await t.runJobs();
    const page = await deliveries(h, ep.id, '?limit=2&offset=1');
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.pagination).toEqual({ limit: 2, offset: 1, total: 3 });
    expect(page.body.data.every((d: any) => d.event_type === 'ping' && d.status === 'succeeded')).toBe(true);
  });
});

describe('a slow endpoint', () => {
  const SHORT = 300;
  beforeAll(() => t.ctx.jobs.register(WEBHOOK_DELIVERY_QUEUE, deliveryHandler(t.ctx, { timeoutMs: SHORT })));
  afterAll(async () => {
    t.ctx.jobs.register(WEBHOOK_DELIVERY_QUEUE, deliveryHandler(t.ctx));
    // Its scheduled retry would hang a later test for the full 10 s.
    await db()('webhook_endpoints').where('url', 'like', `${base}/hang%`).delete();
  });

  it('when one endpoint never answers, then it costs at most its timeout and another endpoint still gets the event on its first attempt', async () => {
    const { u, h } = await signedIn();
    const hang = uniquePath('hang');
    const ok = uniquePath('ok');
    const a = await endpointFor(h, hang, ['donation.paid']);
    await endpointFor(h, ok, ['donation.paid']);
    await createGift(db(), { fundraiserId: (await createFundraiser(db(), u.id)).id });
    const started = Date.now();
    await t.runJobs();
    expect(at(ok)).toHaveLength(1);
    expect(at(ok)[0].at - started).toBeLessThan(SHORT + 5_000);
    expect((await deliveries(h, a.id)).body.data[0]).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
  });
});

describe('endpoints', () => {
  it('when the endpoint receives a ping, then it verifies; after rotate-secret only the new secret verifies', async () => {
    const { h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path);
    expect((await request(t.app).post(`/api/v1/webhook-endpoints/${ep.id}/test`).set(h)).status).toBe(202);
    await t.runJobs();
    const ping = new Webhook(ep.secret).verify(at(path)[0].body, at(path)[0].headers) as any;
    expect(ping).toMatchObject({ type: 'ping', data: { endpoint_id: ep.id } });

    const rot = await request(t.app).post(`/api/v1/webhook-endpoints/${ep.id}/rotate-secret`).set(h);
    expect(rot.status).toBe(200);
    const secret = rot.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(ep.secret);
    await request(t.app).post(`/api/v1/webhook-endpoints/${ep.id}/test`).set(h);
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
    const r = await createEndpoint(ha, { url: `${base}/ok-org`, events: ['*'], organization_id: org.id });
    expect(r.status).toBe(201);
    const denied = await createEndpoint(hv, { url: `${base}/ok-org`, events: ['*'], organization_id: org.id });
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
    expect((await request(t.app).post('/api/v1/webhook-endpoints').send({ url: `${base}/ok`, events: ['*'] })).status).toBe(401);
    const { h } = await signedIn();
    for (const body of [{ url: `${base}/ok`, events: [] }, { url: `${base}/ok`, events: ['nope'] }, { url: 'not a url', events: ['*'] }, { events: ['*'] }]) {
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

  it('when the name resolves to the receiver, then the request goes to the address that was checked', async () => {
    const { h } = await signedIn();
    const port = new URL(base).port;
    const lookup = jest.spyOn(dnsPromises, 'lookup') as unknown as jest.Mock;
    lookup.mockResolvedValue([{ address: '127.0.0.1', family: 4 }]);
    const path = uniquePath('ok');
    const r = await createEndpoint(h, { url: `http://receiver.partner.test:${port}${path}`, events: ['*'] });
    expect(r.status).toBe(201);
    await request(t.app).post(`/api/v1/webhook-endpoints/${r.body.data.id}/test`).set(h);
    await t.runJobs();
    expect(at(path)).toHaveLength(1);
    expect(at(path)[0].headers.host).toBe(`receiver.partner.test:${port}`);
  });

  it('when a name that passed at creation later resolves to a metadata address, then the delivery fails without a request', async () => {
    const { h } = await signedIn();
    const lookup = jest.spyOn(dnsPromises, 'lookup') as unknown as jest.Mock;
    lookup.mockResolvedValue([{ address: '127.0.0.1', family: 4 }]);
    const path = uniquePath('ok');
    const r = await createEndpoint(h, { url: `http://rebind.partner.test:${new URL(base).port}${path}`, events: ['*'] });
    expect(r.status).toBe(201);
    lookup.mockResolvedValue([{ address: '169.254.169.254', family: 4 }]);
    await request(t.app).post(`/api/v1/webhook-endpoints/${r.body.data.id}/test`).set(h);
    await t.runJobs();
    expect(at(path)).toHaveLength(0);
    expect((await deliveries(h, r.body.data.id)).body.data[0]).toMatchObject({ status: 'failed', attempts: 1, next_attempt_at: null });
  });
});

describe('retry schedule', () => {
  it('when attempts fail, then they wait about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 10 h, and the ninth failure is final', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(retryDelayMs)).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 36_000_000, null]);
  });
});

