import dnsPromises from 'node:dns/promises';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { orgWithRoles } from '../helpers/organizations';
import { deliver, stripeEvent } from '../helpers/stripe';
import { webhookApi, webhookReceiver } from '../helpers/webhook-receiver';
import { authHeaders, createUser } from '../helpers/auth';
import { chargeRefunded, piSucceeded, startGift } from './donations-fixtures';
import { makeDue } from '../../src/jobs/admin';
import { WEBHOOK_DELIVERY_QUEUE } from '../../src/modules/webhook-endpoints';
import { deliveryHandler, retryDelayMs } from '../../src/modules/webhook-endpoints/webhook-endpoints.delivery';

/** Outbound webhook deliveries (docs/decisions/0017-outbound-webhooks.md), received by a local server and verified with standardwebhooks. */
afterAll(closeDb);
afterEach(() => jest.restoreAllMocks());

const t = createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const db = () => testDb();
const rx = webhookReceiver();
const api = webhookApi(t);
const { signedIn, createEndpoint, deliveries, ping } = api;
const at = rx.at;
const uniquePath = rx.path;
const endpointFor = (h: Record<string, string>, path: string, events?: string[]) => api.endpointFor(h, `${rx.base()}${path}`, events);

/** Scheduled retries become due now (the job engine's run-at; the schedule itself is checked on next_attempt_at). */
const makeRetriesDue = () => makeDue(db(), WEBHOOK_DELIVERY_QUEUE);

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

  it('when a settled gift takes the campaign past its goal, then fundraiser.goal_reached arrives once', async () => {
    const { u, h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path, ['fundraiser.goal_reached']);
    const f = await createFundraiser(db(), u.id, { goal_amount_cents: 1_000 });
    for (const amount of [1_500, 700]) {
      expect((await deliver(t, piSucceeded(await startGift(t, f.id, amount)))).status).toBe(200);
      await t.runJobs();
    }
    expect(at(path).map((r) => new Webhook(ep.secret).verify(r.body, r.headers))).toEqual([
      { type: 'fundraiser.goal_reached', timestamp: expect.any(String), data: { fundraiser_id: f.id } },
    ]);
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

  it("when a paid payout then fails (and the failure is delivered twice), then payout.failed goes to the holder's endpoint once", async () => {
    const { h } = await signedIn();
    const path = uniquePath('ok');
    const ep = await endpointFor(h, path, ['payout.paid', 'payout.failed']);
    const r = await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({});
    const account = r.body.data.account_id as string;
    const acct = { id: account, object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true };
    expect((await deliver(t, stripeEvent('account.updated', acct, { account }))).status).toBe(200);
    const po = { id: `po_test_${Math.random().toString(36).slice(2, 10)}`, object: 'payout', amount: 900, currency: 'usd', status: 'paid', arrival_date: Math.floor(Date.now() / 1000) };
    expect((await deliver(t, stripeEvent('payout.paid', po, { account }))).status).toBe(200);
    for (let i = 0; i < 2; i += 1) {
      expect((await deliver(t, stripeEvent('payout.failed', { ...po, status: 'failed' }, { account }))).status).toBe(200);
    }
    await t.runJobs();
    const types = at(path).map((x) => (new Webhook(ep.secret).verify(x.body, x.headers) as { type: string }).type);
    expect(types.sort()).toEqual(['payout.failed', 'payout.paid']);
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
    const r = await createEndpoint(ha, { url: `${rx.base()}${orgPath}`, events: ['donation.paid'], organization_id: org.id });
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
    rx.resetFlaky();
    const a = await endpointFor(h, flaky, ['donation.paid']);
    const b = await endpointFor(h, ok, ['donation.paid']);
    await createGift(db(), { fundraiserId: (await createFundraiser(db(), u.id)).id });
    const started = Date.now();
    await t.runJobs();

    expect(at(ok)).toHaveLength(1);
    expect((await deliveries(h, b.id)).body.data[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    const first = (await deliveries(h, a.id)).body.data[0];
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
    // The retry is due seconds after the attempt, which happened between `started` and now (on a busy
    // machine the drain itself may take seconds): bounds from both ends, none tuned to an idle machine.
    const wait = Date.parse(first.next_attempt_at) - started;
    expect(wait).toBeGreaterThan(3_000);
    expect(Date.parse(first.next_attempt_at) - Date.now()).toBeLessThan(15_000);

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
    expect((await ping(h, ep.id)).status).toBe(202);
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
    for (let i = 0; i < 3; i++) await ping(h, ep.id);
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
    await db()('webhook_endpoints').where('url', 'like', `${rx.base()}/hang%`).delete();
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
    // A hang not bounded by its timeout would block the other endpoint for ever; 20 s of slack is for a busy machine.
    expect(at(ok)[0].at - started).toBeLessThan(SHORT + 20_000);
    // Still pending with no answer; on a loaded machine its first retry (seconds later) may already have run.
    const hung = (await deliveries(h, a.id)).body.data[0];
    expect(hung).toMatchObject({ status: 'pending', last_status_code: null });
    expect(hung.attempts).toBeGreaterThanOrEqual(1);
  });
});

describe('sending to the checked address', () => {
  it('when the name resolves to the receiver, then the request goes to the address that was checked', async () => {
    const { h } = await signedIn();
    const port = new URL(rx.base()).port;
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
    const r = await createEndpoint(h, { url: `http://rebind.partner.test:${new URL(rx.base()).port}${path}`, events: ['*'] });
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
