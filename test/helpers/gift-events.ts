import Stripe from 'stripe';
import { stripeEvent } from './stripe';

/**
 * What the load loops (test/cluster/load.ts, test/api/faults.test.ts) need to play the processor
 * for a gift: the create-intent answer they keep, the PaymentIntent Stripe reports once it is paid,
 * and that report as a signed webhook delivery.
 */
const stripe = new Stripe('sk_test_helpers_offline');

/** The fields of POST /payments/create-intent's `data` that settle a gift. */
export interface Gift {
  donation_id: string;
  payment_intent_id: string;
  amount_cents: number;
  tip_cents: number;
  currency: string;
}

export const chargeIdOf = (pi: string) => `ch_${pi.replace(/^pi_/, '')}`;

/** The gift's PaymentIntent as Stripe sends it in payment_intent.succeeded. */
export function paymentSucceeded(g: Gift) {
  return {
    id: g.payment_intent_id,
    object: 'payment_intent',
    amount: g.amount_cents + g.tip_cents,
    amount_received: g.amount_cents + g.tip_cents,
    currency: g.currency.toLowerCase(),
    status: 'succeeded',
    latest_charge: chargeIdOf(g.payment_intent_id),
    metadata: { kind: 'donation', donation_id: g.donation_id },
  };
}

/** A delivery of event `type` around `object`: the body and its Stripe-Signature header for `secret`. */
export function signedEvent(type: string, object: Record<string, unknown>, secret: string): { payload: string; signature: string } {
  const payload = JSON.stringify(stripeEvent(type, object));
  return { payload, signature: stripe.webhooks.generateTestHeaderString({ payload, secret }) };
}
