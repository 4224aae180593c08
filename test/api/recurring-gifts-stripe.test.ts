import request from 'supertest';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';
import { stripeDouble } from '../helpers/stripe-double';
import { giftRow, giftsOf, shuffled } from './recurring-gifts-fixtures';

/**
 * Monthly gifts through the Stripe adapter against a Stripe-compatible double: Checkout in
 * subscription mode, then Stripe-shaped invoice.paid, invoice.payment_failed and
 * customer.subscription.updated / .deleted in any order, with duplicates; the donor's changes
 * reach Stripe with idempotency keys.
 */

const FEE = 111;
let n = 0;
const { seen, url } = stripeDouble((method, path) => {
  if (method === 'POST' && path === '/v1/checkout/sessions') return [200, { id: `cs_test_${(n += 1)}`, object: 'checkout.session', url: `https://checkout.stripe.test/c/${n}` }];
  const pi = /^\/v1\/payment_intents\/(\w+)$/.exec(path);
  if (pi) return [200, { id: pi[1], object: 'payment_intent', status: 'succeeded', metadata: {}, latest_charge: { id: 'ch_1', object: 'charge', balance_transaction: { id: 'txn_1', object: 'balance_transaction', fee: FEE } } }];
  const sub = /^\/v1\/subscriptions\/(\w+)$/.exec(path);
  if (sub && method === 'GET') {
    const price = { id: 'price_1', object: 'price', product: 'prod_1', currency: 'usd', recurring: { interval: 'month' } };
    return [200, { id: sub[1], object: 'subscription', items: { object: 'list', data: [{ id: 'si_1', object: 'subscription_item', price }, { id: 'si_2', object: 'subscription_item', price }] } }];
  }
  if (sub && method === 'POST') return [200, { id: sub[1], object: 'subscription', status: 'active' }];
  if (sub && method === 'DELETE') return [200, { id: sub[1], object: 'subscription', status: 'canceled' }];
  return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method} ${path})` } }];
});

let t: TestApp;
let owner: TestUser;
let donor: TestUser;
let headers: Record<string, string>;
beforeAll(async () => {
  t = createTestApp({ env: { STRIPE_SECRET_KEY: 'sk_test_monthly', STRIPE_WEBHOOK_SECRET: 'whsec_monthly', STRIPE_API_URL: url() } });
  owner = await createUser(testDb());
  donor = await createUser(testDb());
  headers = await authHeaders(t, donor);
});
afterAll(closeDb);

const ok = async (e: Record<string, unknown>) => expect((await deliver(t, e)).status).toBe(200);
const at = (s: number) => Math.floor(Date.now() / 1000) + s;

async function start() {
  const f = await createFundraiser(testDb(), owner.id);
  const res = await request(t.app).post('/api/v1/donations').set(headers).send({ fundraiser_id: f.id, amount_cents: 2_000, tip_cents: 200, interval: 'month' });
  expect(res.status).toBe(201);
  const { donation_id, recurring_gift_id } = res.body.data;
  const metadata = { kind: 'donation', donation_id, recurring_gift_id };
  const sub = `sub_${recurring_gift_id.slice(0, 8)}`;
  const invoice = (id: string, over: Record<string, unknown> = {}) => ({
    id,
    object: 'invoice',
    status: 'paid',
    customer: 'cus_1',
    amount_paid: 2_200,
    currency: 'usd',
    // Newer API versions: the subscription and its metadata under `parent`, the PaymentIntent under `payments`.
    parent: { type: 'subscription_details', subscription_details: { subscription: sub, metadata } },
    payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: `pi_${id}` } }] },
    lines: { object: 'list', data: [{ period: { start: at(0), end: at(30 * 86_400) } }] },
    ...over,
  });
  const subscription = (status: string, over: Record<string, unknown> = {}) => ({ id: sub, object: 'subscription', customer: 'cus_1', status, metadata, current_period_end: at(30 * 86_400), ...over });
  const session = { id: `cs_test_${n}`, object: 'checkout.session', mode: 'subscription', payment_status: 'paid', status: 'complete', amount_total: 2_200, currency: 'usd', subscription: sub, customer: 'cus_1', payment_intent: null, metadata };
  return { f, gid: recurring_gift_id as string, donationId: donation_id as string, sub, invoice, subscription, session };
}

test('when Checkout opens a monthly gift, then it asks Stripe for subscription mode with monthly prices and metadata naming the gift, under the gift\'s idempotency key', async () => {
  const { donationId, gid } = await start();
  const call = seen.find((r) => r.path === '/v1/checkout/sessions')!;
  expect(call.headers['idempotency-key']).toBe(`donation:${donationId}`);
  const f = call.form;
  expect([f.get('mode'), f.get('line_items[0][price_data][recurring][interval]'), f.get('line_items[0][price_data][unit_amount]'), f.get('line_items[1][price_data][unit_amount]')]).toEqual(['subscription', 'month', '2000', '200']);
  expect([f.get('subscription_data[metadata][kind]'), f.get('subscription_data[metadata][donation_id]'), f.get('subscription_data[metadata][recurring_gift_id]')]).toEqual(['donation', donationId, gid]);
});

test('when the events of a first payment, a renewal, a decline and the final cancel arrive shuffled and duplicated, then two gifts settle once each with Stripe\'s fee, and the gift ends canceled', async () => {
  const g = await start();
  const first = stripeEvent('invoice.paid', g.invoice('in_first'));
  const opened = [stripeEvent('checkout.session.completed', g.session), first, stripeEvent('customer.subscription.updated', g.subscription('active'))];
  for (const e of shuffled([...opened, ...opened], 7)) await ok(e);
  expect((await giftRow(t, g.gid)).status).toBe('active');
  expect((await giftsOf(t, g.gid)).map((d) => [d.status, Number(d.processor_fee_cents)])).toEqual([['paid', FEE]]);

  const renewal = stripeEvent('invoice.paid', g.invoice('in_renewal', { billing_reason: 'subscription_cycle' }));
  for (const e of shuffled([renewal, renewal, stripeEvent('invoice.paid', renewal.data.object), first], 3)) await ok(e);
  expect(await giftsOf(t, g.gid)).toHaveLength(2);

  const hosted = 'https://invoice.stripe.test/i/in_declined';
  const declined = stripeEvent('invoice.payment_failed', g.invoice('in_declined', { status: 'open', amount_paid: 0, hosted_invoice_url: hosted, next_payment_attempt: at(3 * 86_400) }));
  await ok(declined);
  await ok(declined);
  await ok(stripeEvent('customer.subscription.updated', g.subscription('past_due')));
  expect((await giftRow(t, g.gid)).status).toBe('past_due');
  await t.runJobs();
  const mail = await t.ctx.db('mail_outbox').where({ template: 'recurring_gift_payment_failed' }).whereRaw('lower("to") = lower(?)', [donor.email]);
  expect(mail).toHaveLength(1);
  expect(mail[0].text).toContain(hosted);

  const deleted = stripeEvent('customer.subscription.deleted', g.subscription('canceled', { canceled_at: at(15 * 86_400) }));
  // An older update arriving after the deletion changes nothing: canceled is final.
  for (const e of [deleted, stripeEvent('customer.subscription.updated', g.subscription('active')), deleted]) await ok(e);
  expect(await giftRow(t, g.gid)).toMatchObject({ status: 'canceled', canceled_by: 'processor' });
  expect(await giftsOf(t, g.gid)).toHaveLength(2);
  expect(await checkLedger(t.ctx.db)).toEqual([]);
});

test('when the donor changes the amount, then Stripe gets one price for the whole amount from the next invoice; when they cancel, Stripe cancels the subscription; each call with an idempotency key', async () => {
  const g = await start();
  await ok(stripeEvent('invoice.paid', g.invoice('in_b1')));
  seen.length = 0;
  const changed = await request(t.app).patch(`/api/v1/me/recurring-gifts/${g.gid}`).set(headers).send({ amount_cents: 3_000 });
  expect(changed.status).toBe(200);
  const update = seen.find((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${g.sub}`)!;
  expect(update.headers['idempotency-key']).toBe(`recurring_gift:${g.gid}:v1`);
  const f = update.form;
  expect([f.get('items[0][id]'), f.get('items[0][price_data][unit_amount]'), f.get('items[0][price_data][product]'), f.get('items[1][id]'), f.get('items[1][deleted]'), f.get('proration_behavior')]).toEqual([
    'si_1', '3200', 'prod_1', 'si_2', 'true', 'none',
  ]);
  expect((await giftRow(t, g.gid)).synced_version).toBe(1);

  const canceled = await request(t.app).delete(`/api/v1/me/recurring-gifts/${g.gid}`).set(headers);
  expect(canceled.body.data.status).toBe('canceled');
  const del = seen.find((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${g.sub}`)!;
  expect(del.headers['idempotency-key']).toBe(`recurring_gift:${g.gid}:cancel`);
  // Stripe's own deletion event then arrives and changes nothing.
  await ok(stripeEvent('customer.subscription.deleted', g.subscription('canceled')));
  expect((await giftRow(t, g.gid)).canceled_by).toBe('donor');
});
