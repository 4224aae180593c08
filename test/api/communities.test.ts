import request from 'supertest';
import { community as makeCommunity, person as makePerson } from '../helpers/communities';
import { serveForSandbox } from '../helpers/listening';
import { until } from '../helpers/processes';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import type { TestUser } from '../helpers/auth';
import { deliver, stripeEvent } from '../helpers/stripe';
import { checkLedger } from '../../src/modules/integrity';
import { sandboxFee } from '../../src/integrations/payments';

/**
 * Paid communities end to end: the app listens on a real port and the sandbox processor
 * delivers its signed events to the webhook over HTTP (as Stripe would); redeliveries are sent
 * with the signing helper of test/helpers/stripe.ts.
 */

const t = createTestApp();
const db = () => testDb();
serveForSandbox(t);
afterAll(closeDb);

type H = Record<string, string>;
const api = (p: string) => `/api/v1${p}`;

const person = (opts: Partial<TestUser> = {}) => makePerson(t, opts);
const community = (h: H, body: Record<string, unknown> = {}) => makeCommunity(t, h, body);

const intentOf = (secret: string) => secret.split('_secret_')[0];
const joinRow = (id: string) => db()('community_joins').where({ id }).first();
const fund = async (id: string) => 0 - Number((await db()('ledger_entries').where({ account: `liability:community:${id}` }).sum({ s: 'amount_cents' }))[0].s ?? 0);

async function expectLedgerClean() {
  expect((await checkLedger(db())).filter((l) => /communit|groups balance|connected/.test(l))).toEqual([]);
}

/** A member who joined without approval: join, pay the first invoice through the sandbox (its signed events settle it). */
async function joinAndPay(c: { id: string }, h: H) {
  const j = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(h).send({ interval: 'month' });
  expect(j.status).toBe(201);
  const pay = await request(t.app).post(`/sandbox/payment-intents/${intentOf(j.body.data.client_secret)}/confirm`).send({ outcome: 'succeeded' });
  expect(pay.body.data.webhook_delivered).toBe(true);
  return j.body.data as { join_id: string; client_secret: string };
}

describe('creating and reading', () => {
  test('when a verified user creates a community, then it answers 201 with a derived slug and the creator is its owner member', async () => {
    const { u, h } = await person();
    const r = await request(t.app).post(api('/communities')).set(h).send({ name: '<b>Café</b> Readers', description: 'Books <script>x</script>', price_cents: 900, interval: 'year' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ name: 'Café Readers', slug: 'cafe-readers', description: 'Books', is_private: false, requires_approval: false, price_cents: 900, currency: 'USD', interval: 'year', owner_user_id: u.id, member_count: 1, membership: { role: 'owner', status: 'active' }, fund_balance_cents: 0 });
    const bySlug = await request(t.app).get(api('/communities/cafe-readers'));
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data.id).toBe(r.body.data.id);
    expect(bySlug.body.data).not.toHaveProperty('fund_balance_cents');
    expect(bySlug.body.data).not.toHaveProperty('membership');
    const other = await person();
    const byId = await request(t.app).get(api(`/communities/${r.body.data.id}`)).set(other.h);
    expect(byId.body.data.membership).toBeNull();
    expect(byId.body.data).not.toHaveProperty('fund_balance_cents');
  });

  test('when the input is bad, the slug taken or the email unverified, then 400, 409 and 403 answer', async () => {
    const { h } = await person();
    await community(h, { slug: 'taken-slug' });
    expect((await request(t.app).post(api('/communities')).set(h).send({ name: 'x', slug: 'taken-slug', price_cents: 500, interval: 'month' })).body.code).toBe('SLUG_TAKEN');
    for (const bad of [{ price_cents: 99 }, { price_cents: 1_000_001 }, { interval: 'week' }, { slug: 'A!' }, { name: '' }]) {
      const r = await request(t.app).post(api('/communities')).set(h).send({ name: 'Ok', price_cents: 500, interval: 'month', ...bad });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('Validation failed');
    }
    const unverified = await person({ email_verified: false });
    expect((await request(t.app).post(api('/communities')).set(unverified.h).send({ name: 'Ok', price_cents: 500, interval: 'month' })).body.code).toBe('EMAIL_NOT_VERIFIED');
    expect((await request(t.app).get(api('/communities/no-such-community'))).status).toBe(404);
    expect((await request(t.app).get(api('/communities/%20bad!'))).status).toBe(400);
    expect((await request(t.app).post(api('/communities')).send({ name: 'Ok', price_cents: 500, interval: 'month' })).status).toBe(401);
  });
});

describe('joining without approval', () => {
  test('when a member pays the first invoice, then the signed invoice.paid makes them a member and the fund holds the payment less the fee, exactly once', async () => {
    const owner = await person();
    const c = await community(owner.h, { price_cents: 2500 });
    const m = await person();
    const j = await request(t.app).post(api(`/communities/${c.slug}/join/paid`)).set(m.h).send({ interval: 'month' });
    expect(j.status).toBe(201);
    expect(j.body.data).toMatchObject({ status: 'pending_payment', intent_type: 'payment' });
    expect(j.body.data.client_secret).toMatch(/^pi_sb_\w+_secret_/);
    // Asking again while unpaid answers the same secret; the wrong interval is refused.
    const again = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(m.h).send({ interval: 'month' });
    expect(again.body.data).toEqual(j.body.data);
    const wrong = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(m.h).send({ interval: 'year' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'INTERVAL_NOT_OFFERED', allowed: ['month'] });
    expect(await fund(c.id)).toBe(0);

    const pay = await request(t.app).post(`/sandbox/payment-intents/${intentOf(j.body.data.client_secret)}/confirm`).send({ outcome: 'succeeded' });
    expect(pay.body.data.webhook_delivered).toBe(true);
    expect(await joinRow(j.body.data.join_id)).toMatchObject({ status: 'active' });
    const read = await request(t.app).get(api(`/communities/${c.id}`)).set(m.h);
    expect(read.body.data).toMatchObject({ member_count: 2, membership: { role: 'member', status: 'active' } });
    expect(await fund(c.id)).toBe(2500 - sandboxFee(2500));

    // The same invoice delivered again under a new event id changes nothing.
    const invoice = (await db()('sandbox_objects').where({ kind: 'invoice' }).whereRaw("data->>'payment_intent' = ?", [intentOf(j.body.data.client_secret)]).first()).data;
    expect((await deliver(t, stripeEvent('invoice.paid', invoice))).status).toBe(200);
    expect(await db()('community_payments').where({ join_id: j.body.data.join_id })).toHaveLength(1);
    expect(await fund(c.id)).toBe(2500 - sandboxFee(2500));
    // A member cannot join twice.
    expect((await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(m.h).send({ interval: 'month' })).body.code).toBe('ALREADY_MEMBER');
    await expectLedgerClean();
  });

  test('when a renewal invoice is paid, then the fund grows by it; when the subscription is deleted, then the membership ends', async () => {
    const owner = await person();
    const c = await community(owner.h, { price_cents: 1000 });
    const m = await person();
    const j = await joinAndPay(c, m.h);
    const row = await joinRow(j.join_id);
    const renewal = { id: 'in_test_renewal_1', object: 'invoice', amount_paid: 1000, currency: 'usd', subscription: row.processor_subscription_id, billing_reason: 'subscription_cycle', parent: { subscription_details: { subscription: row.processor_subscription_id, metadata: { kind: 'community_join', join_id: j.join_id } } } };
    expect((await deliver(t, stripeEvent('invoice.paid', renewal))).status).toBe(200);
    expect(await fund(c.id)).toBe(1000 - sandboxFee(1000) + 1000);
    // An amount that differs from the price settles nothing.
    expect((await deliver(t, stripeEvent('invoice.paid', { ...renewal, id: 'in_test_renewal_2', amount_paid: 999 }))).status).toBe(200);
    expect(await fund(c.id)).toBe(1000 - sandboxFee(1000) + 1000);
    const sub = { id: row.processor_subscription_id, object: 'subscription', status: 'canceled', metadata: { kind: 'community_join', join_id: j.join_id } };
    expect((await deliver(t, stripeEvent('customer.subscription.deleted', sub))).status).toBe(200);
    expect(await joinRow(j.join_id)).toMatchObject({ status: 'canceled' });
    expect(await db()('community_members').where({ community_id: c.id, user_id: m.u.id }).first()).toMatchObject({ status: 'canceled' });
    await expectLedgerClean();
  });
});

describe('joining with approval', () => {
  test('when a card is saved and a leader approves, then the subscription is created, the saved card charged and the requester becomes a member; nothing is charged before', async () => {
    const owner = await person();
    const c = await community(owner.h, { requires_approval: true, price_cents: 3000 });
    const m = await person();
    const j = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(m.h).send({ interval: 'month' });
    expect(j.status).toBe(201);
    expect(j.body.data).toMatchObject({ status: 'requires_payment_method', intent_type: 'setup' });
    expect(j.body.data.client_secret).toMatch(/^seti_sb_\w+_secret_/);
    const id = j.body.data.join_id as string;
    const approveUrl = api(`/communities/${c.id}/join-requests/${id}/approve`);

    // No card yet: leaders cannot approve; the queue lists it only among all open requests.
    expect((await request(t.app).post(approveUrl).set(owner.h)).body.code).toBe('PAYMENT_METHOD_PENDING');
    expect((await request(t.app).get(api(`/communities/${c.id}/join-requests`)).set(owner.h)).body.pagination.total).toBe(0);
    const confirm = await request(t.app).post(`/sandbox/setup-intents/${intentOf(j.body.data.client_secret)}/confirm`).send({ outcome: 'succeeded' });
    expect(confirm.body.data).toMatchObject({ status: 'succeeded', webhook_delivered: true });
    expect(await joinRow(id)).toMatchObject({ status: 'pending_approval', processor_subscription_id: null });
    const queue = await request(t.app).get(api(`/communities/${c.id}/join-requests`)).set(owner.h);
    expect(queue.body).toMatchObject({ data: [{ id, status: 'pending_approval', amount_cents: 3000, currency: 'USD', user: { id: m.u.id } }], pagination: { limit: 20, offset: 0, total: 1 } });
    expect(await db()('community_payments').where({ join_id: id })).toHaveLength(0);
    expect(await fund(c.id)).toBe(0);

    // Only leaders decide.
    const stranger = await person();
    expect((await request(t.app).post(approveUrl).set(stranger.h)).status).toBe(403);
    expect((await request(t.app).post(approveUrl).set(m.h)).body.code).toBe('COMMUNITY_LEADER_ONLY');
    expect((await request(t.app).get(api(`/communities/${c.id}/join-requests`)).set(stranger.h)).status).toBe(403);

    const ok = await request(t.app).post(approveUrl).set(owner.h);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ id, status: 'approved' });
    expect(ok.body.data.decided_at).toEqual(expect.any(String));
    // The processor reports the off-session charge by webhook.
    await until('the member', async () => (await joinRow(id)).status === 'active', 10_000, 50);
    expect(await db()('community_members').where({ community_id: c.id, user_id: m.u.id }).first()).toMatchObject({ role: 'member', status: 'active' });
    const sub = await db()('sandbox_objects').where({ id: (await joinRow(id)).processor_subscription_id }).first();
    expect(sub.data).toMatchObject({ status: 'active', default_payment_method: expect.stringMatching(/^pm_sb_/), metadata: { kind: 'community_join', join_id: id } });
    expect(await fund(c.id)).toBe(3000 - sandboxFee(3000));
    expect((await request(t.app).post(approveUrl).set(owner.h)).body.code).toBe('JOIN_NOT_PENDING');
    await expectLedgerClean();
  });

  test('when a leader declines a private community request, then nothing is charged and it can no longer be approved', async () => {
    const owner = await person();
    const c = await community(owner.h, { is_private: true });
    const m = await person();
    const j = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(m.h).send({ interval: 'month' });
    expect(j.body.data.intent_type).toBe('setup');
    const id = j.body.data.join_id as string;
    expect((await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(m.h).send({ interval: 'month' })).body.data.client_secret).toBe(j.body.data.client_secret);
    await request(t.app).post(`/sandbox/setup-intents/${intentOf(j.body.data.client_secret)}/confirm`).send({ outcome: 'succeeded' });
    expect((await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(m.h).send({ interval: 'month' })).body.code).toBe('JOIN_PENDING');
    const other = await community(owner.h, { name: 'Other' });
    expect((await request(t.app).post(api(`/communities/${other.id}/join-requests/${id}/decline`)).set(owner.h)).status).toBe(404);
    expect((await request(t.app).post(api(`/communities/${c.id}/join-requests/not-a-uuid/decline`)).set(owner.h)).status).toBe(400);
    const no = await request(t.app).post(api(`/communities/${c.id}/join-requests/${id}/decline`)).set(owner.h);
    expect(no.status).toBe(200);
    expect(no.body.data.status).toBe('declined');
    expect((await request(t.app).post(api(`/communities/${c.id}/join-requests/${id}/approve`)).set(owner.h)).body.code).toBe('JOIN_NOT_PENDING');
    expect(await db()('sandbox_objects').where({ kind: 'subscription' }).whereRaw("data->'metadata'->>'join_id' = ?", [id])).toHaveLength(0);
    expect(await fund(c.id)).toBe(0);
    // Declined, the person may ask again.
    expect((await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(m.h).send({ interval: 'month' })).status).toBe(201);
  });
});
