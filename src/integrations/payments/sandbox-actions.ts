import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { recordEvents, sandboxEvent, type SandboxEvent } from './sandbox-delivery';
import { chargeObject, nowS, periodEnd, sbId, sessionView } from './sandbox-objects';
import { createObject, updateObject } from './sandbox.repo';
import { recordBalanceTxn, recordChargeTxn } from './sandbox-balance';
import { confirmSetupIntent as confirmSetup, settleInvoiceOf } from './sandbox-subscriptions';
import { clockNowS } from './sandbox-clock';

/**
 * What the sandbox's pages and test endpoints do to its objects: each action changes the
 * stored objects and records the events Stripe would send, in one transaction. The caller
 * delivers the answered events after commit (sandbox-delivery.ts).
 */

/** A refused action; `status` is the HTTP status the sandbox routes answer with. */
export class SandboxActionError extends Error {
  constructor(readonly status: 400 | 404 | 409, message: string) {
    super(message);
  }
}

type Obj = Record<string, any>;

async function locked(trx: Knex.Transaction, id: string, kind: string): Promise<Obj> {
  const row = await trx('sandbox_objects').where({ id, kind }).forUpdate().first('data');
  if (!row) throw new SandboxActionError(404, `No such ${kind.replace('_', ' ')}: ${id}`);
  return row.data as Obj;
}

async function inTrx<T extends { events: SandboxEvent[] }>(db: Db, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    const out = await fn(trx);
    await recordEvents(trx, out.events);
    return out;
  });
}

/** Marks a PaymentIntent succeeded with a new charge; answers the updated intent. */
async function succeedIntent(trx: Knex.Transaction, pi: Obj): Promise<Obj> {
  const charge = chargeObject({ id: pi.id, amount: Number(pi.amount), currency: pi.currency, metadata: pi.metadata ?? {} });
  await createObject(trx, 'charge', charge.id, charge);
  await recordChargeTxn(trx, charge);
  const patch = { status: 'succeeded', amount_received: Number(pi.amount), latest_charge: charge.id, last_payment_error: null };
  await updateObject(trx, pi.id, patch);
  return { ...pi, ...patch };
}

async function newSucceededIntent(trx: Knex.Transaction, amount: number, currency: string, metadata: Obj, email: string | null): Promise<Obj> {
  const id = sbId('pi');
  const pi = { id, object: 'payment_intent', amount, currency, status: 'processing', metadata, receipt_email: email, created: nowS(), latest_charge: null };
  await createObject(trx, 'payment_intent', id, pi);
  return succeedIntent(trx, pi);
}

export interface CheckoutOutcome {
  redirect: string;
  events: SandboxEvent[];
}

const withSessionId = (url: string, id: string) => url.replaceAll('{CHECKOUT_SESSION_ID}', id);

/** The payer pressed "Pay": the session completes as its mode says (payment, subscription or setup). */
export function completeCheckout(db: Db, sessionId: string): Promise<CheckoutOutcome> {
  return inTrx(db, async (trx) => {
    const s = await locked(trx, sessionId, 'checkout_session');
    // A double-clicked "Pay": the browser shows the second answer, so it must be the same redirect.
    if (s.status === 'complete') return { redirect: withSessionId(s.success_url, s.id), events: [] };
    if (s.status !== 'open') throw new SandboxActionError(409, `This checkout session is ${s.status}`);
    const metadata = s.metadata ?? {};
    const email = s.customer_email ?? null;
    const events: SandboxEvent[] = [];
    const patch: Obj = { status: 'complete', payment_status: 'paid' };
    let after: SandboxEvent[] = [];
    if (s.mode === 'payment') {
      const pi = await newSucceededIntent(trx, Number(s.amount_total), s.currency, metadata, email);
      patch.payment_intent = pi.id;
      after = [sandboxEvent('payment_intent.succeeded', pi)];
    } else if (s.mode === 'subscription') {
      const interval: 'month' | 'year' = s.interval === 'year' ? 'year' : 'month';
      // Periods follow the sandbox clock, so a subscription started after advancing it renews a period later.
      const start = await clockNowS(trx);
      const subId = sbId('sub');
      const customer = sbId('cus');
      const sub = {
        id: subId,
        object: 'subscription',
        status: 'active',
        customer,
        currency: s.currency,
        metadata,
        current_period_start: start,
        current_period_end: periodEnd(start, interval),
        billing_cycle_anchor: start,
        cancel_at_period_end: false,
        canceled_at: null,
        created: start,
        items: {
          object: 'list',
          data: [{ id: sbId('si'), object: 'subscription_item', current_period_end: periodEnd(start, interval), price: { unit_amount: Number(s.amount_total), currency: s.currency, recurring: { interval } } }],
        },
      };
      await createObject(trx, 'subscription', subId, sub);
      const pi = await newSucceededIntent(trx, Number(s.amount_total), s.currency, metadata, email);
      const invoice = {
        id: sbId('in'),
        object: 'invoice',
        status: 'paid',
        customer,
        customer_email: email,
        subscription: subId,
        payment_intent: pi.id,
        charge: pi.latest_charge,
        amount_due: Number(s.amount_total),
        amount_paid: Number(s.amount_total),
        currency: s.currency,
        billing_reason: 'subscription_create',
        period_start: start,
        period_end: sub.current_period_end,
        // Newer API versions moved the subscription's metadata here; older ones had `subscription`.
        subscription_details: { metadata },
        parent: { type: 'subscription_details', subscription_details: { subscription: subId, metadata } },
        created: start,
      };
      await createObject(trx, 'invoice', invoice.id, invoice);
      patch.subscription = subId;
      after = [sandboxEvent('invoice.paid', invoice)];
    } else {
      const si = { id: sbId('seti'), object: 'setup_intent', status: 'succeeded', metadata, usage: 'off_session', created: nowS() };
      await createObject(trx, 'setup_intent', si.id, si);
      patch.setup_intent = si.id;
      patch.payment_status = 'no_payment_required';
    }
    await updateObject(trx, s.id, patch);
    events.push(sandboxEvent('checkout.session.completed', sessionView({ ...s, ...patch })), ...after);
    return { redirect: withSessionId(s.success_url, s.id), events };
  });
}

/** The payer pressed "Cancel": Stripe would expire the session, so the sandbox does at once. */
export function cancelCheckout(db: Db, sessionId: string): Promise<CheckoutOutcome> {
  return inTrx(db, async (trx) => {
    const s = await locked(trx, sessionId, 'checkout_session');
    if (s.status === 'expired') return { redirect: withSessionId(s.cancel_url, s.id), events: [] };
    if (s.status !== 'open') throw new SandboxActionError(409, `This checkout session is ${s.status}`);
    const patch = { status: 'expired', payment_status: 'unpaid' };
    await updateObject(trx, s.id, patch);
    return { redirect: withSessionId(s.cancel_url, s.id), events: [sandboxEvent('checkout.session.expired', sessionView({ ...s, ...patch }))] };
  });
}

/** Stands in for Stripe.js confirming a card: succeeded, or declined (the intent may be confirmed again). */
export function confirmPaymentIntent(db: Db, id: string, outcome: 'succeeded' | 'failed') {
  return inTrx(db, async (trx) => {
    const pi = await locked(trx, id, 'payment_intent');
    if (pi.status === 'succeeded' || pi.status === 'canceled') {
      throw new SandboxActionError(409, `This PaymentIntent is ${pi.status} and cannot be confirmed`);
    }
    if (outcome === 'succeeded') {
      const done = await succeedIntent(trx, pi);
      // A subscription invoice's intent also pays its invoice (`invoice.paid` after the intent's event).
      return { id, status: 'succeeded', events: [sandboxEvent('payment_intent.succeeded', done), ...(await settleInvoiceOf(trx, done, true))] };
    }
    const patch = {
      status: 'requires_payment_method',
      last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
    };
    await updateObject(trx, id, patch);
    const failed = { ...pi, ...patch };
    return { id, status: 'requires_payment_method', events: [sandboxEvent('payment_intent.payment_failed', failed), ...(await settleInvoiceOf(trx, failed, false))] };
  });
}

/** Stands in for Stripe.js confirming a SetupIntent (a card saved for later charges, or refused). */
export function confirmSetupIntent(db: Db, id: string, outcome: 'succeeded' | 'failed') {
  return inTrx(db, async (trx) => {
    const out = await confirmSetup(trx, await locked(trx, id, 'setup_intent'), outcome);
    if (out.error !== undefined) throw new SandboxActionError(409, out.error);
    return out;
  });
}

/** Refunds part or all of what is left of a succeeded PaymentIntent's charge. */
export function refundPaymentIntent(db: Db, id: string, amountCents?: number) {
  return inTrx(db, async (trx) => {
    const pi = await locked(trx, id, 'payment_intent');
    if (pi.status !== 'succeeded' || !pi.latest_charge) throw new SandboxActionError(409, 'Only a succeeded PaymentIntent can be refunded');
    const charge = await locked(trx, pi.latest_charge, 'charge');
    const left = Number(charge.amount) - Number(charge.amount_refunded);
    const amount = amountCents ?? left;
    if (left <= 0) throw new SandboxActionError(409, 'This charge is already fully refunded');
    if (amount < 1 || amount > left) throw new SandboxActionError(400, `amount_cents must be between 1 and ${left}`);
    const refund = { id: sbId('re'), object: 'refund', amount, currency: charge.currency, charge: charge.id, payment_intent: id, status: 'succeeded', metadata: pi.metadata ?? {}, created: nowS() };
    await createObject(trx, 'refund', refund.id, refund);
    await recordBalanceTxn(trx, { type: 'refund', amount: -amount, currency: charge.currency, source: { id: refund.id, object: 'refund', payment_intent: id } });
    const refunded = Number(charge.amount_refunded) + amount;
    const refunds = { object: 'list', data: [refund, ...(charge.refunds?.data ?? [])], has_more: false };
    const patch = { amount_refunded: refunded, refunded: refunded === Number(charge.amount), refunds };
    await updateObject(trx, charge.id, patch);
    return { id, refund_id: refund.id, amount_refunded: refunded, events: [sandboxEvent('charge.refunded', { ...charge, ...patch })] };
  });
}

/** The holder finished the hosted onboarding form: the account can take charges and payouts. */
export function completeOnboarding(db: Db, accountId: string) {
  return inTrx(db, async (trx) => {
    const acct = await locked(trx, accountId, 'account');
    const patch = { charges_enabled: true, payouts_enabled: true, details_submitted: true, requirements: { currently_due: [], disabled_reason: null } };
    await updateObject(trx, accountId, patch);
    return { id: accountId, events: [sandboxEvent('account.updated', { ...acct, ...patch }, accountId)] };
  });
}
