import request from 'supertest';
import type { TestApp } from '../helpers/app';
import { chargeIdOf, paymentSucceeded, type Gift } from '../helpers/gift-events';
import { stripeEvent } from '../helpers/stripe';

// Processor objects shaped as Stripe sends them, linked to a gift by metadata.
export { chargeIdOf, type Gift } from '../helpers/gift-events';

/** A pending gift started by a guest through POST /payments/create-intent. */
export async function startGift(t: TestApp, fundraiserId: string, amount = 2_500, tip = 0, extra: Record<string, unknown> = {}): Promise<Gift> {
  const res = await request(t.app)
    .post('/api/v1/payments/create-intent')
    .send({ fundraiser_id: fundraiserId, amount_cents: amount, tip_cents: tip, donor_email: 'guest@example.test', ...extra });
  if (res.status !== 201) throw new Error(`create-intent answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Gift;
}

export function piSucceeded(g: Gift, over: Record<string, unknown> = {}) {
  return stripeEvent('payment_intent.succeeded', { ...paymentSucceeded(g), ...over });
}

export function piFailed(g: Gift) {
  return stripeEvent('payment_intent.payment_failed', {
    id: g.payment_intent_id,
    object: 'payment_intent',
    amount: g.amount_cents + g.tip_cents,
    currency: g.currency.toLowerCase(),
    status: 'requires_payment_method',
    metadata: { kind: 'donation', donation_id: g.donation_id },
  });
}

/** charge.refunded with the cumulative amount refunded so far (as Stripe reports it). */
export function chargeRefunded(g: Gift, amountRefunded: number, eventId?: string) {
  const gross = g.amount_cents + g.tip_cents;
  return stripeEvent(
    'charge.refunded',
    {
      id: chargeIdOf(g.payment_intent_id),
      object: 'charge',
      amount: gross,
      amount_refunded: amountRefunded,
      refunded: amountRefunded >= gross,
      currency: g.currency.toLowerCase(),
      paid: true,
      status: 'succeeded',
      payment_intent: g.payment_intent_id,
      metadata: { kind: 'donation', donation_id: g.donation_id },
    },
    eventId ? { id: eventId } : {},
  );
}

/** A dispute object carries no metadata: the gift is found by its PaymentIntent / charge. */
export function dispute(g: Gift, type: 'charge.dispute.created' | 'charge.dispute.closed', status: string, amount?: number) {
  return stripeEvent(type, {
    id: `dp_${g.payment_intent_id}`,
    object: 'dispute',
    amount: amount ?? g.amount_cents + g.tip_cents,
    currency: g.currency.toLowerCase(),
    charge: chargeIdOf(g.payment_intent_id),
    payment_intent: g.payment_intent_id,
    status,
    metadata: {},
  });
}

/** Makes the sandbox's PaymentIntent succeeded, so the sandbox fee (2.9% + 30c) applies. */
export async function sandboxSucceeded(t: TestApp, pi: string): Promise<void> {
  await t.ctx.db('sandbox_objects').where({ id: pi }).update({ data: t.ctx.db.raw(`data || '{"status":"succeeded"}'::jsonb`) });
}
