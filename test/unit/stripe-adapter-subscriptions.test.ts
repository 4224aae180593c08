import { parseConfig } from '../../src/config';
import type { Db } from '../../src/db/knex';
import { StripeProcessor } from '../../src/integrations/payments/stripe';
import { stripeDouble } from '../helpers/stripe-double';

/**
 * The Stripe adapter's SetupIntent and subscription calls (communities) through the real SDK
 * against a small Stripe-compatible server that records each request.
 */

function answer(path: string, form: URLSearchParams): [number, Record<string, unknown>] {
  if (path === '/v1/customers') return [200, { id: 'cus_1', object: 'customer' }];
  if (path === '/v1/setup_intents') return [200, { id: 'seti_1', object: 'setup_intent', client_secret: 'seti_1_secret_x', customer: form.get('customer') }];
  if (path === '/v1/products') return [200, { id: 'prod_1', object: 'product', name: form.get('name') }];
  if (path === '/v1/subscriptions') {
    const saved = form.get('default_payment_method');
    return [200, { id: 'sub_1', object: 'subscription', customer: form.get('customer'), status: saved ? 'active' : 'incomplete', latest_invoice: { id: 'in_1', object: 'invoice', confirmation_secret: saved ? null : { type: 'payment_intent', client_secret: 'pi_9_secret_y' } } }];
  }
  return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${path})` } }];
}

const { seen, url: apiUrl } = stripeDouble((_method, path, form) => answer(path, form));

const processor = () => new StripeProcessor(parseConfig({ STRIPE_SECRET_KEY: 'sk_test_adapter', STRIPE_API_URL: apiUrl(), STRIPE_WEBHOOK_SECRET: 'whsec_x' }), null as unknown as Db);
const meta = { kind: 'community_join', join_id: 'j-1' };

test('when a SetupIntent is created, then a customer comes first and the intent saves the card for off-session use, each with its own idempotency key', async () => {
  const si = await processor().createSetupIntent({ email: 'ada@example.test', metadata: meta, idempotencyKey: 'community-join:j-1' });
  expect(si).toEqual({ id: 'seti_1', client_secret: 'seti_1_secret_x', customer: 'cus_1' });
  expect(seen.map((r) => [r.path, r.headers['idempotency-key']])).toEqual([
    ['/v1/customers', 'community-join:j-1:customer'],
    ['/v1/setup_intents', 'community-join:j-1'],
  ]);
  expect(seen[0]!.form.get('email')).toBe('ada@example.test');
  const f = seen[1]!.form;
  expect([f.get('customer'), f.get('usage'), f.get('metadata[kind]'), f.get('metadata[join_id]')]).toEqual(['cus_1', 'off_session', 'community_join', 'j-1']);
});

test('when a subscription is created without a saved card, then it waits for its first invoice and answers that invoice\'s payment secret', async () => {
  const sub = await processor().createSubscription({ email: 'ada@example.test', product_name: 'Membership: Owls', amount_cents: 1500, currency: 'USD', interval: 'year', metadata: meta, idempotencyKey: 'community-join:j-1' });
  expect(sub).toEqual({ id: 'sub_1', customer: 'cus_1', status: 'incomplete', latest_invoice: 'in_1', client_secret: 'pi_9_secret_y' });
  expect(seen.map((r) => r.path)).toEqual(['/v1/customers', '/v1/products', '/v1/subscriptions']);
  const f = seen[2]!.form;
  expect(seen[2]!.headers['idempotency-key']).toBe('community-join:j-1');
  expect(f.get('payment_behavior')).toBe('default_incomplete');
  expect(f.get('items[0][price_data][product]')).toBe('prod_1');
  expect(f.get('items[0][price_data][unit_amount]')).toBe('1500');
  expect(f.get('items[0][price_data][currency]')).toBe('usd');
  expect(f.get('items[0][price_data][recurring][interval]')).toBe('year');
  expect(f.get('metadata[join_id]')).toBe('j-1');
  expect(f.get('expand[0]')).toBe('latest_invoice.confirmation_secret');
});

test('when a subscription is created on a saved card, then it is charged off session and no secret is answered', async () => {
  const sub = await processor().createSubscription({ customer: 'cus_7', default_payment_method: 'pm_7', product_name: 'Membership', amount_cents: 1500, currency: 'usd', interval: 'month', metadata: meta, idempotencyKey: 'community-join:j-1:subscription' });
  expect(sub).toMatchObject({ id: 'sub_1', customer: 'cus_7', status: 'active', client_secret: null });
  expect(seen.map((r) => r.path)).toEqual(['/v1/products', '/v1/subscriptions']);
  const f = seen[1]!.form;
  expect([f.get('customer'), f.get('default_payment_method'), f.get('off_session'), f.get('payment_behavior')]).toEqual(['cus_7', 'pm_7', 'true', 'allow_incomplete']);
});
