import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import request from 'supertest';
import type { TestApp } from './app';

// stripe-node's own test helper signs every event the tests send (no key needed for it).
const stripe = new Stripe('sk_test_helpers_offline');

let seq = 0;
export const evtId = () => `evt_test_${Date.now().toString(36)}_${(seq += 1)}_${randomBytes(4).toString('hex')}`;

/** A Stripe-shaped event around `object`. */
export function stripeEvent(type: string, object: Record<string, any>, extra: { id?: string; account?: string } = {}) {
  return {
    id: extra.id ?? evtId(),
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    ...(extra.account ? { account: extra.account } : {}),
    data: { object },
  };
}

/** The `Stripe-Signature` header for `payload`, made by stripe.webhooks.generateTestHeaderString. */
export async function signatureFor(t: TestApp, payload: string): Promise<string> {
  const secret = await t.ctx.payments.webhookSecret();
  return stripe.webhooks.generateTestHeaderString({ payload, secret });
}

/** Delivers one signed event to POST /api/v1/webhooks/stripe and answers the supertest response. */
export async function deliver(t: TestApp, event: Record<string, any>) {
  const payload = JSON.stringify(event);
  return request(t.app)
    .post('/api/v1/webhooks/stripe')
    .set('Content-Type', 'application/json')
    .set('Stripe-Signature', await signatureFor(t, payload))
    .send(payload);
}
