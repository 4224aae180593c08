import Stripe from 'stripe';
import { parseConfig } from '../../src/config';
import type { Db } from '../../src/db/knex';
import { StripeProcessor } from '../../src/integrations/payments/stripe';
import { WebhookPayloadError } from '../../src/integrations/payments';
import { stripeDouble } from '../helpers/stripe-double';

/**
 * The Stripe adapter through the real SDK against a small Stripe-compatible server started here
 * (STRIPE_API_URL), which records every request and answers Stripe-shaped JSON.
 */

function answer(method: string, path: string, form: URLSearchParams): [number, Record<string, unknown>] {
  const meta = Object.fromEntries([...form].filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v]));
  if (method === 'POST' && path === '/v1/payment_intents') {
    return [200, { id: 'pi_1', object: 'payment_intent', client_secret: 'pi_1_secret_abc', amount: Number(form.get('amount')), currency: form.get('currency'), metadata: meta, status: 'requires_payment_method' }];
  }
  if (method === 'POST' && path === '/v1/checkout/sessions') {
    return [200, { id: 'cs_1', object: 'checkout.session', url: 'https://checkout.stripe.test/c/pay/cs_1', metadata: meta }];
  }
  if (method === 'POST' && path === '/v1/accounts') {
    return [200, { id: 'acct_1', object: 'account', type: 'express', charges_enabled: false, payouts_enabled: false, details_submitted: false, metadata: meta }];
  }
  if (method === 'GET' && path === '/v1/accounts/acct_1') {
    return [200, { id: 'acct_1', object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true }];
  }
  if (method === 'POST' && path === '/v1/account_links') {
    return [200, { object: 'account_link', url: 'https://connect.stripe.test/setup/e/acct_1/xyz', created: 1, expires_at: 2 }];
  }
  if (method === 'POST' && path === '/v1/accounts/acct_1/login_links') {
    return [200, { object: 'login_link', url: 'https://connect.stripe.test/express/acct_1/abc', created: 1 }];
  }
  if (method === 'POST' && path === '/v1/transfers') {
    return [200, { id: 'tr_1', object: 'transfer', amount: Number(form.get('amount')), currency: form.get('currency'), destination: form.get('destination'), metadata: meta }];
  }
  if (method === 'GET' && path === '/v1/payouts') {
    return [200, { object: 'list', url: '/v1/payouts', has_more: false, data: [{ id: 'po_1', object: 'payout', amount: 4200, currency: 'usd', status: 'paid', arrival_date: 1767225600 }] }];
  }
  if (method === 'GET' && path === '/v1/payment_intents/pi_1') {
    return [200, { id: 'pi_1', object: 'payment_intent', status: 'succeeded', latest_charge: { id: 'ch_1', object: 'charge', balance_transaction: { id: 'txn_1', object: 'balance_transaction', fee: 103 } } }];
  }
  return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } }];
}

const { seen, url: apiUrl } = stripeDouble(answer);

const noDb = null as unknown as Db;
const processor = () =>
  new StripeProcessor(parseConfig({ STRIPE_SECRET_KEY: 'sk_test_adapter', STRIPE_API_URL: apiUrl(), STRIPE_WEBHOOK_SECRET: 'whsec_adapter_test' }), noDb);
const last = () => seen[seen.length - 1]!;

describe('Stripe adapter against a Stripe-compatible server', () => {
  test('when a PaymentIntent is created, then the SDK sends the amount, currency, metadata, the bearer key and our Idempotency-Key', async () => {
    const pi = await processor().createPaymentIntent({
      amount_cents: 2500,
      currency: 'USD',
      metadata: { kind: 'donation', donation_id: 'd-1' },
      receipt_email: 'guest@example.test',
      idempotencyKey: 'donation:d-1:intent',
    });
    expect(pi).toEqual({ id: 'pi_1', client_secret: 'pi_1_secret_abc' });
    const r = last();
    expect([r.method, r.path]).toEqual(['POST', '/v1/payment_intents']);
    expect(r.headers['idempotency-key']).toBe('donation:d-1:intent');
    expect(r.headers.authorization).toBe('Bearer sk_test_adapter');
    expect(r.form.get('amount')).toBe('2500');
    expect(r.form.get('currency')).toBe('usd');
    expect(r.form.get('metadata[kind]')).toBe('donation');
    expect(r.form.get('metadata[donation_id]')).toBe('d-1');
    expect(r.form.get('receipt_email')).toBe('guest@example.test');
  });

  test('when a payment Checkout Session is created, then the line item, return URLs and metadata (on the session and its PaymentIntent) go with our Idempotency-Key', async () => {
    const s = await processor().createCheckoutSession({
      mode: 'payment',
      currency: 'USD',
      line_items: [{ name: 'Gift', amount_cents: 2500 }, { name: 'Tip', amount_cents: 300 }],
      metadata: { kind: 'donation', donation_id: 'd-2' },
      success_url: 'http://site.test/ok',
      cancel_url: 'http://site.test/no',
      customer_email: 'guest@example.test',
      idempotencyKey: 'donation:d-2:checkout',
    });
    expect(s).toEqual({ id: 'cs_1', url: 'https://checkout.stripe.test/c/pay/cs_1' });
    const r = last();
    expect(r.path).toBe('/v1/checkout/sessions');
    expect(r.headers['idempotency-key']).toBe('donation:d-2:checkout');
    expect(r.form.get('mode')).toBe('payment');
    expect(r.form.get('line_items[0][price_data][unit_amount]')).toBe('2500');
    expect(r.form.get('line_items[0][price_data][currency]')).toBe('usd');
    expect(r.form.get('line_items[0][price_data][product_data][name]')).toBe('Gift');
    expect(r.form.get('line_items[1][price_data][unit_amount]')).toBe('300');
    expect(r.form.get('metadata[donation_id]')).toBe('d-2');
    expect(r.form.get('payment_intent_data[metadata][donation_id]')).toBe('d-2');
    expect(r.form.get('success_url')).toBe('http://site.test/ok');
    expect(r.form.get('customer_email')).toBe('guest@example.test');
  });

  test('when a subscription Checkout Session is created, then the price recurs monthly and the subscription carries the metadata', async () => {
    await processor().createCheckoutSession({
      mode: 'subscription',
      currency: 'usd',
      line_items: [{ name: 'Monthly tip', amount_cents: 500 }],
      interval: 'month',
      metadata: { kind: 'tip', tip_id: 't-1' },
      success_url: 'http://site.test/tip/t-1',
      cancel_url: 'http://site.test/tip/t-1',
      idempotencyKey: 'tip:t-1:checkout',
    });
    const r = last();
    expect(r.form.get('line_items[0][price_data][recurring][interval]')).toBe('month');
    expect(r.form.get('subscription_data[metadata][tip_id]')).toBe('t-1');
    expect(r.form.get('payment_intent_data[metadata][tip_id]')).toBeNull();
  });

  test('when a connected account is created, then it is an Express account asking for the transfers capability, with metadata and our Idempotency-Key', async () => {
    const acct = await processor().createConnectedAccount({ email: 'holder@example.test', metadata: { owner_type: 'user', owner_id: 'u-1' }, idempotencyKey: 'account:user:u-1' });
    expect(acct).toEqual({ id: 'acct_1', charges_enabled: false, payouts_enabled: false, details_submitted: false });
    const r = last();
    expect(r.path).toBe('/v1/accounts');
    expect(r.headers['idempotency-key']).toBe('account:user:u-1');
    expect(r.form.get('type')).toBe('express');
    expect(r.form.get('capabilities[transfers][requested]')).toBe('true');
    expect(r.form.get('metadata[owner_id]')).toBe('u-1');
  });

  test('when an onboarding link, a dashboard link and an account are asked for, then the right endpoints answer with their URLs', async () => {
    const p = processor();
    expect(await p.createOnboardingLink('acct_1', { refresh_url: 'http://site.test/r', return_url: 'http://site.test/done' })).toBe('https://connect.stripe.test/setup/e/acct_1/xyz');
    expect(last().form.get('type')).toBe('account_onboarding');
    expect(last().form.get('account')).toBe('acct_1');
    expect(last().form.get('return_url')).toBe('http://site.test/done');
    expect(await p.createDashboardLink('acct_1')).toBe('https://connect.stripe.test/express/acct_1/abc');
    expect(await p.retrieveConnectedAccount('acct_1')).toEqual({ id: 'acct_1', charges_enabled: true, payouts_enabled: true, details_submitted: true });
  });

  test('when money is transferred, then amount, currency, destination, metadata and our Idempotency-Key are sent', async () => {
    expect(await processor().createTransfer({ amount_cents: 9700, currency: 'USD', destination: 'acct_1', metadata: { fundraiser_id: 'f-1' }, idempotencyKey: 'transfer:f-1:1' })).toEqual({ id: 'tr_1' });
    const r = last();
    expect(r.path).toBe('/v1/transfers');
    expect(r.headers['idempotency-key']).toBe('transfer:f-1:1');
    expect([r.form.get('amount'), r.form.get('currency'), r.form.get('destination'), r.form.get('metadata[fundraiser_id]')]).toEqual(['9700', 'usd', 'acct_1', 'f-1']);
  });

  test('when payouts are listed, then the request acts as the connected account (Stripe-Account) and arrival dates become calendar dates', async () => {
    const payouts = await processor().listPayouts('acct_1', 500);
    expect(payouts).toEqual([{ id: 'po_1', amount_cents: 4200, currency: 'usd', status: 'paid', arrival_date: '2026-01-01' }]);
    const r = last();
    expect([r.method, r.path]).toEqual(['GET', '/v1/payouts']);
    expect(r.headers['stripe-account']).toBe('acct_1');
    expect(r.query.get('limit')).toBe('100');
  });

  test('when the fee of a PaymentIntent is asked for, then its charge balance transaction is expanded and its fee answered', async () => {
    expect(await processor().feeForPaymentIntent('pi_1')).toBe(103);
    expect(last().query.getAll('expand[0]')).toEqual(['latest_charge.balance_transaction']);
  });
});

describe('Stripe adapter webhook signatures', () => {
  const stripe = new Stripe('sk_test_signer');
  const donationId = '6f1c2a4e-8a8b-4c1e-9d7a-0b6c1d2e3f40';
  const payload = JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type: 'payment_intent.succeeded',
    created: 1,
    data: { object: { id: 'pi_1', amount: 1200, amount_received: 1200, currency: 'USD', latest_charge: 'ch_1', metadata: { kind: 'donation', donation_id: donationId } } },
  });

  test('when a delivery is signed by generateTestHeaderString with the webhook secret, then parseWebhook answers the typed event', async () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_adapter_test' });
    const event = await processor().parseWebhook(Buffer.from(payload), header);
    expect(event).toEqual({
      id: 'evt_1',
      processor_type: 'payment_intent.succeeded',
      created: new Date(1000),
      kind: 'PaymentSucceeded',
      ref: { kind: 'donation', id: donationId },
      payment_intent_id: 'pi_1',
      charge_id: 'ch_1',
      amount_cents: 1200,
      currency: 'usd',
      fee_cents: null,
    });
  });

  test('when a signed body is not JSON, not an object, or has no data.object, id or type, then parseWebhook throws WebhookPayloadError; an unknown type is Unhandled', async () => {
    const p = processor();
    const sign = (body: string) => stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_adapter_test' });
    const broken = [
      'not json',
      '[]',
      'null',
      JSON.stringify({ id: 'evt_x', type: 'payment_intent.succeeded' }),
      JSON.stringify({ id: 'evt_x', type: 'payment_intent.succeeded', data: { object: null } }),
      JSON.stringify({ type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } }),
      JSON.stringify({ id: 'evt_x', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1', amount: '12', currency: 'usd' } } }),
    ];
    for (const body of broken) await expect(p.parseWebhook(body, sign(body))).rejects.toBeInstanceOf(WebhookPayloadError);
    const other = JSON.stringify({ id: 'evt_y', type: 'balance.available', created: 2, data: { object: { object: 'balance' } } });
    expect(await p.parseWebhook(other, sign(other))).toMatchObject({ kind: 'Unhandled', id: 'evt_y', processor_type: 'balance.available', ref: null });
  });

  test('when the signature is made with another secret, missing, or the body changed, then parseWebhook throws', async () => {
    const p = processor();
    const wrong = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    await expect(p.parseWebhook(payload, wrong)).rejects.toThrow();
    await expect(p.parseWebhook(payload, undefined)).rejects.toThrow();
    const good = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_adapter_test' });
    await expect(p.parseWebhook(payload.replace('pi_1', 'pi_2'), good)).rejects.toThrow();
    const stale = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_adapter_test', timestamp: Math.floor(Date.now() / 1000) - 3600 });
    await expect(p.parseWebhook(payload, stale)).rejects.toThrow();
  });
});
