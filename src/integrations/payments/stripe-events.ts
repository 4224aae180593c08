import type Stripe from 'stripe';
import type { PaymentEvent, PaymentKind, PaymentRef } from './events';
import { WebhookPayloadError } from './events';
import { giftOf, tipOf } from './gift-metadata';
import { joinOf } from './join-metadata';

/**
 * Stripe's event objects (also what the sandbox sends) turned into the service's typed payment
 * events, as Medusa's Stripe provider does in getWebhookActionAndData: the only place that
 * reads a raw processor object. A type not listed is `Unhandled`; a known type whose object
 * lacks what the service needs is a WebhookPayloadError (answered 400).
 */

type Obj = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KINDS: Record<PaymentKind, string> = { donation: 'donation_id', tip: 'tip_id', community_join: 'join_id' };

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A reference that may arrive as an id or as the expanded object. */
export const idOf = (v: unknown): string | null => (typeof v === 'string' && v ? v : isObj(v) && typeof v.id === 'string' && v.id ? v.id : null);
export const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
export const date = (v: unknown): Date | null => (typeof v === 'number' && Number.isFinite(v) ? new Date(v * 1000) : null);
const intOr = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);

/**
 * The row a processor object's metadata names (see PaymentRef); null for objects that name none.
 * Given the object itself, a gift's, tip's or community join's full description comes along when its metadata has one.
 */
export function refOf(metadata: unknown, object?: Obj): PaymentRef | null {
  if (!isObj(metadata)) return null;
  const kind = metadata.kind;
  if (typeof kind !== 'string' || !kind) return null;
  if (!(kind in KINDS)) return { kind: 'other', id: null };
  const raw = metadata[KINDS[kind as PaymentKind]];
  const id = typeof raw === 'string' && UUID.test(raw) ? raw : null;
  const gift = kind === 'donation' && id && object ? giftOf(id, metadata, object) : null;
  if (gift) return { kind: 'donation', id, gift };
  const tip = kind === 'tip' && id && object ? tipOf(id, metadata, object) : null;
  if (tip) return { kind: 'tip', id, tip };
  const join = kind === 'community_join' && id && object ? joinOf(id, metadata, object) : null;
  return join ? { kind: 'community_join', id, join } : { kind: kind as PaymentKind, id };
}

/** Reads the fields of one event's object; a missing required field is the event's payload error. */
function reader(eventId: string, type: string, o: Obj) {
  const fail = (what: string): never => {
    throw new WebhookPayloadError(`${type} ${eventId}: ${what}`, eventId, type);
  };
  return {
    id: (key: string): string => idOf(o[key]) ?? fail(`data.object.${key} is not an id`),
    cents: (...keys: string[]): number => {
      for (const k of keys) if (o[k] !== undefined && o[k] !== null) return intOr(o[k]) ?? fail(`data.object.${k} is not a whole number of cents`);
      return fail(`data.object.${keys[0]} is missing`);
    },
    currency: (): string => str(o.currency)?.toLowerCase() ?? fail('data.object.currency is missing'),
  };
}

/** The invoice's subscription and its metadata: older API versions name them at the top, newer ones under `parent`. */
const invoiceSubscription = (inv: Obj) => {
  const parent = isObj(inv.parent) && isObj(inv.parent.subscription_details) ? inv.parent.subscription_details : null;
  return idOf(inv.subscription) ?? idOf(parent?.subscription);
};
const invoiceMetadata = (inv: Obj) =>
  (isObj(inv.metadata) && refOf(inv.metadata) ? inv.metadata : null) ??
  (isObj(inv.subscription_details) ? inv.subscription_details.metadata : null) ??
  (isObj(inv.parent) && isObj(inv.parent.subscription_details) ? inv.parent.subscription_details.metadata : null);
/** The invoice's PaymentIntent: older API versions name it, newer ones list it under `payments`. */
const invoiceIntent = (inv: Obj): string | null => {
  if (inv.payment_intent) return idOf(inv.payment_intent);
  const first = isObj(inv.payments) && Array.isArray(inv.payments.data) ? inv.payments.data[0] : null;
  return isObj(first) && isObj(first.payment) ? idOf(first.payment.payment_intent) : null;
};
/** The fee of an expanded charge's balance transaction, when the object carries it. */
const feeOfCharge = (charge: unknown): number | null => (isObj(charge) && isObj(charge.balance_transaction) ? intOr(charge.balance_transaction.fee) : null);

/** The fees on a dispute's balance transactions (the dispute object carries them expanded). */
const disputeFees = (o: Obj): { cents: number; txns: number } | null => {
  const list = Array.isArray(o.balance_transactions) ? o.balance_transactions.filter(isObj) : [];
  if (list.length === 0) return null;
  const cents = list.reduce((sum, bt) => sum + (typeof bt.fee === 'number' && Number.isSafeInteger(bt.fee) ? bt.fee : 0), 0);
  return { cents, txns: list.length };
};

/** One verified event body (already parsed JSON) as a typed payment event. */
export function toPaymentEvent(body: unknown): PaymentEvent {
  if (!isObj(body)) throw new WebhookPayloadError('The event is not a JSON object');
  const id = str(body.id);
  const type = str(body.type);
  if (!id || !type) throw new WebhookPayloadError('The event has no id or no type', id, type);
  if (!isObj(body.data) || !isObj(body.data.object)) throw new WebhookPayloadError(`${type} ${id}: data.object is missing`, id, type);
  const o = body.data.object;
  const r = reader(id, type, o);
  const created = date(body.created) ?? new Date();
  const account = str(body.account);
  const base = { id, processor_type: type, created, ref: refOf(o.metadata, o) };

  switch (type) {
    case 'payment_intent.succeeded':
      return {
        ...base,
        kind: 'PaymentSucceeded',
        payment_intent_id: r.id('id'),
        charge_id: idOf(o.latest_charge),
        amount_cents: r.cents('amount_received', 'amount'),
        currency: r.currency(),
        fee_cents: feeOfCharge(o.latest_charge),
      };
    case 'payment_intent.payment_failed':
      return { ...base, kind: 'PaymentFailed', payment_intent_id: r.id('id') };
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const mode = o.mode === 'payment' || o.mode === 'subscription' || o.mode === 'setup' ? o.mode : null;
      return {
        ...base,
        kind: 'CheckoutCompleted',
        session_id: r.id('id'),
        mode,
        paid: o.payment_status === 'paid',
        amount_cents: o.amount_total === null || o.amount_total === undefined ? null : r.cents('amount_total'),
        currency: str(o.currency)?.toLowerCase() ?? '',
        payment_intent_id: idOf(o.payment_intent),
        subscription_id: idOf(o.subscription),
        customer_id: idOf(o.customer),
        invoice_id: idOf(o.invoice),
      };
    }
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired':
      return { ...base, kind: 'CheckoutFailed', reason: type.endsWith('expired') ? 'expired' : 'failed', session_id: r.id('id') };
    case 'charge.refunded':
      return {
        ...base,
        kind: 'Refunded',
        charge_id: r.id('id'),
        payment_intent_id: idOf(o.payment_intent),
        amount_cents: r.cents('amount'),
        amount_refunded_cents: r.cents('amount_refunded'),
        currency: r.currency(),
      };
    case 'charge.dispute.created':
    case 'charge.dispute.closed':
      return {
        ...base,
        kind: type.endsWith('created') ? 'DisputeOpened' : 'DisputeClosed',
        dispute_id: r.id('id'),
        charge_id: idOf(o.charge),
        payment_intent_id: idOf(o.payment_intent),
        amount_cents: r.cents('amount'),
        currency: r.currency(),
        status: str(o.status) ?? '',
        fees: disputeFees(o),
      };
    case 'invoice.paid': {
      const lines = isObj(o.lines) && Array.isArray(o.lines.data) && isObj(o.lines.data[0]) ? o.lines.data[0] : null;
      const periodEnd = date(isObj(lines?.period) ? lines.period.end : undefined) ?? (Number(o.period_end) > Number(o.period_start) ? date(o.period_end) : null);
      return {
        ...base,
        ref: refOf(invoiceMetadata(o), o),
        kind: 'InvoicePaid',
        invoice_id: r.id('id'),
        subscription_id: invoiceSubscription(o),
        customer_id: idOf(o.customer),
        payment_intent_id: invoiceIntent(o),
        amount_cents: r.cents('amount_paid'),
        currency: r.currency(),
        period_end: periodEnd,
      };
    }
    case 'invoice.payment_failed':
      return {
        ...base,
        ref: refOf(invoiceMetadata(o), o),
        kind: 'InvoicePaymentFailed',
        invoice_id: r.id('id'),
        subscription_id: invoiceSubscription(o),
        hosted_invoice_url: str(o.hosted_invoice_url),
        next_payment_attempt: date(o.next_payment_attempt),
      };
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const item = isObj(o.items) && Array.isArray(o.items.data) && isObj(o.items.data[0]) ? o.items.data[0] : null;
      return {
        ...base,
        kind: 'SubscriptionChanged',
        deleted: type.endsWith('deleted'),
        subscription_id: r.id('id'),
        customer_id: idOf(o.customer),
        status: str(o.status),
        current_period_end: date(o.current_period_end ?? item?.current_period_end),
        canceled_at: date(o.canceled_at),
        ended_at: date(o.ended_at),
      };
    }
    case 'setup_intent.succeeded':
      return { ...base, kind: 'SetupSucceeded', setup_intent_id: r.id('id'), payment_method_id: idOf(o.payment_method), customer_id: idOf(o.customer) };
    case 'account.updated': {
      const md = isObj(o.metadata) ? o.metadata : {};
      const owner = str(md.owner_type) && str(md.owner_id) ? { type: md.owner_type as string, id: md.owner_id as string } : null;
      const accountId = idOf(o.id) ?? account ?? r.id('id');
      return { ...base, ref: null, kind: 'AccountUpdated', account_id: accountId, charges_enabled: !!o.charges_enabled, payouts_enabled: !!o.payouts_enabled, details_submitted: !!o.details_submitted, owner };
    }
    case 'payout.paid':
    case 'payout.failed': {
      const arrival = date(o.arrival_date)?.toISOString().slice(0, 10) ?? (typeof o.arrival_date === 'string' && /^\d{4}-\d{2}-\d{2}/.test(o.arrival_date) ? o.arrival_date.slice(0, 10) : null);
      return {
        ...base,
        ref: null,
        kind: type.endsWith('paid') ? 'PayoutPaid' : 'PayoutFailed',
        account_id: account,
        payout: { id: r.id('id'), amount_cents: r.cents('amount'), currency: r.currency(), arrival_date: arrival },
      };
    }
    default:
      return { ...base, kind: 'Unhandled' };
  }
}

/**
 * Verifies a delivery's `Stripe-Signature` with the SDK (throws on a bad or missing one), then
 * translates it. A body that is signed but not JSON, or not an event the service can read,
 * throws WebhookPayloadError.
 */
export function parseSignedEvent(stripe: Stripe, rawBody: Buffer | string, signature: string | undefined, secrets: readonly string[]): PaymentEvent {
  // stripe-node checks one secret per call (against every v1 signature of the header): a
  // delivery is accepted when any configured secret verifies it.
  // The fallback error is made only when needed: capturing its stack costs more than the check.
  let failure: unknown;
  for (const secret of secrets) {
    let body: unknown;
    try {
      body = stripe.webhooks.constructEvent(rawBody, signature ?? '', secret);
    } catch (err) {
      // The signature matched but the body is not JSON: no other secret makes it readable.
      if (err instanceof SyntaxError) throw new WebhookPayloadError('The event body is not JSON');
      failure = err;
      continue;
    }
    return toPaymentEvent(body);
  }
  throw failure ?? new Error('No webhook secret is configured');
}

/** Every processor event type the service acts on (what the event catch-up lists; Stripe takes up to 20). */
export const HANDLED_EVENT_TYPES = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
  'invoice.paid',
  'invoice.payment_failed',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'setup_intent.succeeded',
  'account.updated',
  'payout.paid',
  'payout.failed',
] as const;
