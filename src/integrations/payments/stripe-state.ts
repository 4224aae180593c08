import type { PaymentEvent } from './events';
import { toPaymentEvent } from './stripe-events';

/**
 * What the recheck learns by asking the processor about one object (a PaymentIntent, Checkout
 * Session, invoice or SetupIntent), as the events a webhook would have brought.
 */

type Obj = Record<string, unknown>;

/**
 * A processor object's present state as the event that reports it, with a stable id per
 * object and state (`recheck_<id>_<type>`): the recheck claims it like a delivery, so a second
 * recheck is a duplicate, and the later real webhook meets a row already settled.
 */
export function stateEvent(type: string, object: Record<string, unknown>): PaymentEvent {
  return toPaymentEvent({ id: `recheck_${String(object.id)}_${type}`, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object } });
}

/** The typed events a PaymentIntent's state means (empty while it is still open). */
export function intentStateEvents(pi: Obj): PaymentEvent[] {
  if (pi.status === 'succeeded') return [stateEvent('payment_intent.succeeded', pi)];
  if (pi.status === 'requires_payment_method' && pi.last_payment_error) return [stateEvent('payment_intent.payment_failed', pi)];
  return [];
}

/** A Checkout Session's state: completed and paid, or expired; `invoice` is a subscription's first invoice. */
export function sessionStateEvents(session: Obj, invoice: Obj | null): PaymentEvent[] {
  if (session.status === 'expired') return [stateEvent('checkout.session.expired', session)];
  if (session.status !== 'complete') return [];
  const out = [stateEvent('checkout.session.completed', session)];
  if (invoice) out.push(...invoiceStateEvents(invoice));
  return out;
}

export function invoiceStateEvents(invoice: Obj): PaymentEvent[] {
  return invoice.status === 'paid' ? [stateEvent('invoice.paid', invoice)] : [];
}

/** A SetupIntent that saved its card (a community join waiting for its leaders' decision). */
export function setupStateEvents(si: Obj): PaymentEvent[] {
  return si.status === 'succeeded' ? [stateEvent('setup_intent.succeeded', si)] : [];
}
