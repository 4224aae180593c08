import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { CreateSetupIntentInput, CreateSubscriptionInput, SetupIntentResult, SubscriptionResult } from './port';
import { recordEvents, sandboxEvent, type SandboxEvent } from './sandbox-delivery';
import { chargeObject, nowS, periodEnd, sbId } from './sandbox-objects';
import { createObject, updateObject } from './sandbox.repo';
import { recordChargeTxn } from './sandbox-balance';
import { clockNowS } from './sandbox-clock';

/**
 * The sandbox's SetupIntents and API-created subscriptions, shaped as Stripe's: a SetupIntent
 * saves a card on a customer (confirmed through the sandbox's control route, standing in for
 * Stripe.js); a subscription with a saved card charges its first invoice at once, one without
 * waits for the invoice's PaymentIntent to be confirmed (then `invoice.paid` follows).
 */

type Obj = Record<string, any>;
const secretOf = (id: string) => `${id}_secret_${randomBytes(12).toString('hex')}`;

export async function createSetupIntent(db: Db, input: CreateSetupIntentInput): Promise<SetupIntentResult> {
  return db.transaction(async (trx) => {
    const id = sbId('seti');
    const customer = sbId('cus');
    const si = {
      id,
      object: 'setup_intent',
      status: 'requires_payment_method',
      usage: 'off_session',
      customer,
      metadata: input.metadata,
      client_secret: secretOf(id),
      payment_method: null,
      created: nowS(),
    };
    const obj = await createObject(trx, 'setup_intent', id, si, input.idempotencyKey);
    // A retried create answers the first SetupIntent and its customer, as Stripe's idempotency does.
    if (obj.id === id) await createObject(trx, 'customer', customer, { id: customer, object: 'customer', email: input.email ?? null, metadata: input.metadata });
    return { id: obj.id, client_secret: obj.data.client_secret, customer: obj.data.customer };
  });
}

/** Stands in for Stripe.js confirming a SetupIntent: the card is saved (`setup_intent.succeeded`) or refused (`setup_intent.setup_failed`). */
export async function confirmSetupIntent(
  trx: Knex.Transaction,
  si: Obj,
  outcome: 'succeeded' | 'failed',
): Promise<{ error?: string; id: string; status: string; events: SandboxEvent[] }> {
  if (si.status === 'succeeded' || si.status === 'canceled') return { error: `This SetupIntent is ${si.status} and cannot be confirmed`, id: si.id, status: si.status, events: [] };
  if (outcome === 'failed') {
    const patch = { status: 'requires_payment_method', last_setup_error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' } };
    await updateObject(trx, si.id, patch);
    return { id: si.id, status: patch.status, events: [sandboxEvent('setup_intent.setup_failed', { ...si, ...patch })] };
  }
  const pm = sbId('pm');
  await createObject(trx, 'payment_method', pm, { id: pm, object: 'payment_method', type: 'card', customer: si.customer, card: { brand: 'visa', last4: '4242' } });
  const patch = { status: 'succeeded', payment_method: pm, last_setup_error: null };
  await updateObject(trx, si.id, patch);
  return { id: si.id, status: 'succeeded', events: [sandboxEvent('setup_intent.succeeded', { ...si, ...patch })] };
}

function invoiceObject(sub: Obj, pi: Obj, status: 'open' | 'paid'): Obj {
  const amount = Number(pi.amount);
  return {
    id: sbId('in'),
    object: 'invoice',
    status,
    customer: sub.customer,
    subscription: sub.id,
    payment_intent: pi.id,
    charge: pi.latest_charge ?? null,
    amount_due: amount,
    amount_paid: status === 'paid' ? amount : 0,
    amount_remaining: status === 'paid' ? 0 : amount,
    currency: sub.currency,
    billing_reason: 'subscription_create',
    period_start: sub.current_period_start,
    period_end: sub.current_period_end,
    // Newer API versions name the payment and the subscription's metadata here; older ones used the fields above.
    payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: pi.id } }] },
    confirmation_secret: status === 'open' ? { type: 'payment_intent', client_secret: pi.client_secret } : null,
    subscription_details: { metadata: sub.metadata },
    parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
    created: nowS(),
  };
}

/**
 * Creates the subscription with its first invoice. With a saved card the invoice is paid now
 * and `invoice.paid` is recorded (answered in `events` for delivery after commit); without one
 * the invoice stays open and its PaymentIntent's secret is answered.
 */
export async function createSubscription(db: Db, input: CreateSubscriptionInput): Promise<SubscriptionResult & { events: SandboxEvent[] }> {
  return db.transaction(async (trx) => {
    const saved = input.default_payment_method ?? null;
    const start = await clockNowS(trx);
    const end = periodEnd(start, input.interval);
    const currency = input.currency.toLowerCase();
    const sub: Obj = {
      id: sbId('sub'),
      object: 'subscription',
      status: saved ? 'active' : 'incomplete',
      customer: input.customer ?? sbId('cus'),
      currency,
      metadata: input.metadata,
      default_payment_method: saved,
      current_period_start: start,
      current_period_end: end,
      billing_cycle_anchor: start,
      cancel_at_period_end: false,
      canceled_at: null,
      created: start,
      latest_invoice: null,
      items: {
        object: 'list',
        data: [{ id: sbId('si'), object: 'subscription_item', current_period_end: end, price: { unit_amount: input.amount_cents, currency, recurring: { interval: input.interval } } }],
      },
    };
    const stored = await createObject(trx, 'subscription', sub.id, sub, input.idempotencyKey);
    if (stored.id !== sub.id) {
      // A retried create: the first subscription, no second charge.
      const first = stored.data as Obj;
      return { id: first.id, customer: first.customer, status: first.status, latest_invoice: first.latest_invoice, client_secret: first.first_secret ?? null, events: [] };
    }
    if (!input.customer) await createObject(trx, 'customer', sub.customer, { id: sub.customer, object: 'customer', email: input.email ?? null, metadata: input.metadata });
    const piId = sbId('pi');
    // Stripe's invoice PaymentIntents carry no metadata of their own: the invoice links them.
    const pi: Obj = { id: piId, object: 'payment_intent', amount: input.amount_cents, currency, metadata: {}, customer: sub.customer, created: start, client_secret: secretOf(piId), latest_charge: null };
    let events: SandboxEvent[] = [];
    if (saved) {
      const charge = chargeObject({ id: piId, amount: input.amount_cents, currency, metadata: {} });
      await createObject(trx, 'charge', charge.id, charge);
      await recordChargeTxn(trx, charge);
      Object.assign(pi, { status: 'succeeded', amount_received: input.amount_cents, latest_charge: charge.id, payment_method: saved });
    } else {
      pi.status = 'requires_payment_method';
    }
    const invoice = invoiceObject(sub, pi, saved ? 'paid' : 'open');
    pi.invoice = invoice.id;
    await createObject(trx, 'payment_intent', piId, pi);
    await createObject(trx, 'invoice', invoice.id, invoice);
    const firstSecret = saved ? null : pi.client_secret;
    await updateObject(trx, sub.id, { latest_invoice: invoice.id, first_secret: firstSecret });
    if (saved) {
      events = [sandboxEvent('invoice.paid', invoice)];
      await recordEvents(trx, events);
    }
    return { id: sub.id, customer: sub.customer, status: sub.status, latest_invoice: invoice.id, client_secret: firstSecret, events };
  });
}

/**
 * A subscription invoice's PaymentIntent was confirmed: the invoice is paid and the subscription
 * active (`invoice.paid`), or the payment failed (`invoice.payment_failed`). Other intents: no events.
 */
export async function settleInvoiceOf(trx: Knex.Transaction, pi: Obj, succeeded: boolean): Promise<SandboxEvent[]> {
  if (!pi.invoice) return [];
  const row = await trx('sandbox_objects').where({ id: pi.invoice, kind: 'invoice' }).forUpdate().first('data');
  if (!row) return [];
  const inv = row.data as Obj;
  if (!succeeded) return [sandboxEvent('invoice.payment_failed', { ...inv, attempt_count: Number(inv.attempt_count ?? 0) + 1 })];
  if (inv.status === 'paid') return [];
  const patch = { status: 'paid', amount_paid: Number(inv.amount_due), amount_remaining: 0, charge: pi.latest_charge ?? null, confirmation_secret: null };
  await updateObject(trx, inv.id, patch);
  if (inv.subscription) await updateObject(trx, inv.subscription, { status: 'active', default_payment_method: pi.payment_method ?? null, first_secret: null });
  return [sandboxEvent('invoice.paid', { ...inv, ...patch })];
}
