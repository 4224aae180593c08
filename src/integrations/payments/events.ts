/**
 * What a processor webhook event means to the service, as the payment adapters translate it
 * (stripe-events.ts; the sandbox sends Stripe's shape, so both use one translation). Handlers
 * outside src/integrations/payments read only these: never a raw processor object.
 * Amounts are integer cents, currencies lower-case ISO codes, times Dates.
 */
import type { ProcessorGift, ProcessorTip } from './gift-metadata';
import type { ProcessorJoin } from './join-metadata';

/** The `metadata.kind` every processor object the service creates carries (docs/decisions/0002-exactly-once-processor-events.md). */
export type PaymentKind = 'donation' | 'tip' | 'community_join';

/**
 * The row an object names in its metadata (its own, or its subscription's on invoices):
 * `{ kind, donation_id | tip_id | join_id }`. `id` is null when the metadata names the kind but
 * no well-formed id. Objects that carry no metadata (disputes, payouts, accounts) have no ref.
 */
export interface PaymentRef {
  /** 'other': the metadata names a kind this service does not handle (no module takes it). */
  kind: PaymentKind | 'other';
  id: string | null;
  /** A gift's whole description, when the object's metadata carries one (gift-metadata.ts). */
  gift?: ProcessorGift;
  /** A tip's, likewise. */
  tip?: ProcessorTip;
  /** A community join's, likewise (join-metadata.ts). */
  join?: ProcessorJoin;
}

interface EventBase {
  /** The processor's event id: each takes effect once. */
  id: string;
  /** The processor's own type (`payment_intent.succeeded`), recorded with the id. */
  processor_type: string;
  created: Date;
  ref: PaymentRef | null;
}

/** A PaymentIntent succeeded (payment_intent.succeeded). */
export interface PaymentSucceeded extends EventBase {
  kind: 'PaymentSucceeded';
  payment_intent_id: string;
  charge_id: string | null;
  amount_cents: number;
  currency: string;
  /** The processor's fee when the event carries it; null: ask the port (feeForPaymentIntent). */
  fee_cents: number | null;
}

/** A PaymentIntent's attempt was declined (payment_intent.payment_failed); it may still succeed later. */
export interface PaymentFailed extends EventBase {
  kind: 'PaymentFailed';
  payment_intent_id: string;
}

/** A Checkout Session completed (checkout.session.completed / async_payment_succeeded). */
export interface CheckoutCompleted extends EventBase {
  kind: 'CheckoutCompleted';
  session_id: string;
  mode: 'payment' | 'subscription' | 'setup' | null;
  /** Money arrived; false while an asynchronous payment method is still processing. */
  paid: boolean;
  /** Null for a setup session. */
  amount_cents: number | null;
  currency: string;
  payment_intent_id: string | null;
  subscription_id: string | null;
  customer_id: string | null;
  invoice_id: string | null;
}

/** A Checkout Session ended without payment: its async payment failed, or it expired. */
export interface CheckoutFailed extends EventBase {
  kind: 'CheckoutFailed';
  reason: 'failed' | 'expired';
  session_id: string;
}

/** A charge was refunded, in part or in full (charge.refunded): the cumulative amount so far. */
export interface Refunded extends EventBase {
  kind: 'Refunded';
  charge_id: string;
  payment_intent_id: string | null;
  /** The charge's amount. */
  amount_cents: number;
  amount_refunded_cents: number;
  currency: string;
}

interface DisputeBase extends EventBase {
  dispute_id: string;
  charge_id: string | null;
  payment_intent_id: string | null;
  amount_cents: number;
  currency: string;
  /** The processor's dispute status: warning_* (an inquiry), needs_response, won, lost, ... */
  status: string;
  /**
   * The processor's dispute fees so far, net of any it gave back (Stripe lists them on the
   * dispute's balance_transactions: the withdrawal's fee, a reinstatement's negative one), and
   * how many balance transactions that sum covers (the list only grows); null when none is listed.
   */
  fees: { cents: number; txns: number } | null;
}

/** charge.dispute.created */
export interface DisputeOpened extends DisputeBase {
  kind: 'DisputeOpened';
}

/** charge.dispute.closed */
export interface DisputeClosed extends DisputeBase {
  kind: 'DisputeClosed';
}

/** An invoice of a subscription was paid (invoice.paid): a first payment or a renewal. */
export interface InvoicePaid extends EventBase {
  kind: 'InvoicePaid';
  invoice_id: string;
  subscription_id: string | null;
  customer_id: string | null;
  payment_intent_id: string | null;
  amount_cents: number;
  currency: string;
  /** The end of the period the invoice pays for, when it says. */
  period_end: Date | null;
}

/** invoice.payment_failed */
export interface InvoicePaymentFailed extends EventBase {
  kind: 'InvoicePaymentFailed';
  invoice_id: string;
  subscription_id: string | null;
  /** Where the payer can pay the invoice with another card (Stripe's hosted invoice page), when it says. */
  hosted_invoice_url: string | null;
  /** When the processor tries again; null after its last retry. */
  next_payment_attempt: Date | null;
}

/** customer.subscription.updated / .deleted */
export interface SubscriptionChanged extends EventBase {
  kind: 'SubscriptionChanged';
  deleted: boolean;
  subscription_id: string;
  customer_id: string | null;
  status: string | null;
  current_period_end: Date | null;
  canceled_at: Date | null;
  ended_at: Date | null;
}

/** setup_intent.succeeded: a card saved for later charges. */
export interface SetupSucceeded extends EventBase {
  kind: 'SetupSucceeded';
  setup_intent_id: string;
  payment_method_id: string | null;
  customer_id: string | null;
}

/** account.updated: a connected account's capabilities. */
export interface AccountUpdated extends EventBase {
  kind: 'AccountUpdated';
  account_id: string;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  /** The holder the account's metadata names, when it does. */
  owner: { type: string; id: string } | null;
}

interface PayoutBase extends EventBase {
  /** The connected account (Connect events name it); null when the event names none. */
  account_id: string | null;
  payout: { id: string; amount_cents: number; currency: string; arrival_date: string | null };
}

export interface PayoutPaid extends PayoutBase {
  kind: 'PayoutPaid';
}

export interface PayoutFailed extends PayoutBase {
  kind: 'PayoutFailed';
}

/** A type the service does not handle: recorded as ignored. */
export interface Unhandled extends EventBase {
  kind: 'Unhandled';
}

export type PaymentEvent =
  | PaymentSucceeded
  | PaymentFailed
  | CheckoutCompleted
  | CheckoutFailed
  | Refunded
  | DisputeOpened
  | DisputeClosed
  | InvoicePaid
  | InvoicePaymentFailed
  | SubscriptionChanged
  | SetupSucceeded
  | AccountUpdated
  | PayoutPaid
  | PayoutFailed
  | Unhandled;

export type PaymentEventKind = PaymentEvent['kind'];
export type EventOf<K extends PaymentEventKind> = Extract<PaymentEvent, { kind: K }>;

/** A signed event whose envelope or object the adapter cannot read (answered 400, never retried into a 500). */
export class WebhookPayloadError extends Error {
  constructor(
    message: string,
    /** The event id when the envelope had one. */
    readonly eventId: string | null = null,
    readonly processorType: string | null = null,
  ) {
    super(message);
  }
}
