import type Stripe from 'stripe';
import type { PaymentRef } from './events';
import { refOf } from './stripe-events';

type Obj = Record<string, unknown>;

/**
 * The row a PaymentIntent's metadata names, with the gift's description. A Checkout gift's
 * PaymentIntent holds neither the donor's address nor the session: its Checkout Session does
 * (found by the PaymentIntent), and its creation is when the gift was started.
 */
export async function paymentIntentRef(stripe: Stripe, paymentIntentId: string): Promise<PaymentRef | null> {
  let pi: Stripe.PaymentIntent;
  try {
    pi = await stripe.paymentIntents.retrieve(paymentIntentId);
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
  const ref = refOf(pi.metadata, pi as unknown as Obj);
  if (ref?.gift?.method !== 'checkout') return ref;
  const session = (await stripe.checkout.sessions.list({ payment_intent: pi.id, limit: 1 })).data[0];
  // The session carries the same metadata (donations.service.ts writes both).
  return (session && refOf(session.metadata, session as unknown as Obj)) || ref;
}
