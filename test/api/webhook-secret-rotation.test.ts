import Stripe from 'stripe';
import request from 'supertest';
import { ConfigError, parseConfig } from '../../src/config';
import { closeDb, createTestApp } from '../helpers/app';
import { stripeEvent } from '../helpers/stripe';

/**
 * Rolling the processor's webhook signing secret: STRIPE_WEBHOOK_SECRET holds the new and the
 * old secret together, and a delivery signed with either (or, as Stripe signs during a roll,
 * with both in one header) is accepted; any other signature is 400.
 */

afterAll(closeDb);
const OLD = 'whsec_old_secret_before_the_roll';
const NEW = 'whsec_new_secret_after_the_roll';
const t = createTestApp({ env: { STRIPE_WEBHOOK_SECRET: `${NEW}, ${OLD}` } });
const stripe = new Stripe('sk_test_helpers_offline');

/** An event type the service ignores: a good signature answers 200 and changes nothing. */
async function post(sign: (payload: string) => string) {
  const payload = JSON.stringify(stripeEvent('customer.created', { id: 'cus_rotation', object: 'customer' }));
  return request(t.app).post('/api/v1/webhooks/stripe').set('Content-Type', 'application/json').set('Stripe-Signature', sign(payload)).send(payload);
}
const header = (payload: string, secret: string) => stripe.webhooks.generateTestHeaderString({ payload, secret });

describe('several webhook signing secrets at once', () => {
  test('when a delivery is signed with the old secret, then it is accepted', async () => {
    const r = await post((p) => header(p, OLD));
    expect([r.status, r.body]).toEqual([200, { received: true }]);
  });

  test('when a delivery is signed with the new secret, then it is accepted', async () => {
    expect((await post((p) => header(p, NEW))).status).toBe(200);
  });

  test('when one header carries a signature for each secret (as during a roll), then it is accepted', async () => {
    const r = await post((p) => {
      const ts = Math.floor(Date.now() / 1000);
      // Each test header is `t=<ts>,v1=<hmac>`; Stripe's own header lists one v1 per active secret.
      const v1 = (secret: string) => stripe.webhooks.generateTestHeaderString({ payload: p, secret, timestamp: ts }).split(',')[1];
      return `t=${ts},${v1('whsec_neither_of_ours')},${v1(OLD)}`;
    });
    expect(r.status).toBe(200);
  });

  test('when a delivery is signed with a secret that is not configured, then 400', async () => {
    const r = await post((p) => header(p, 'whsec_someone_elses_secret'));
    expect(r.status).toBe(400);
  });

  test('when the signature is missing, then 400', async () => {
    expect((await post(() => '')).status).toBe(400);
  });

  test('when the sandbox signs its own deliveries, then it uses the first secret listed', async () => {
    expect(await t.ctx.payments.webhookSecret()).toBe(NEW);
  });

  test.each([['whsec_a,not_a_secret'], ['whsec_a,,whsec_b'], ['whsec_a whsec_b']])('when STRIPE_WEBHOOK_SECRET=%s, then one line naming the variable', (value) => {
    let message = '';
    try {
      parseConfig({ STRIPE_WEBHOOK_SECRET: value });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toContain('STRIPE_WEBHOOK_SECRET');
    expect(message.split('\n')).toHaveLength(1);
  });

  test('when STRIPE_WEBHOOK_SECRET lists two secrets with spaces around the comma, then both are kept', () => {
    expect(parseConfig({ STRIPE_WEBHOOK_SECRET: 'whsec_a , whsec_b' }).STRIPE_WEBHOOK_SECRET).toBe('whsec_a , whsec_b');
  });
});
