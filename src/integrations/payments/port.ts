/**
 * The payment processor as the service uses it: Stripe (STRIPE_SECRET_KEY set; STRIPE_API_URL
 * may point at a Stripe-compatible server) or the built-in sandbox. Amounts are integer cents,
 * currencies lower-case ISO codes. Every call that creates something takes an idempotency key.
 * Processor objects carry `metadata` linking them to rows: { kind, donation_id | tip_id | join_id };
 * a gift's, a tip's and a community join's also describe it (gift-metadata.ts, join-metadata.ts).
 */
import type { PaymentEvent, PaymentRef } from './events';
import type { ProcessorMetadata } from './gift-metadata';

export type { ProcessorMetadata };

export interface CreatePaymentIntentInput {
  amount_cents: number;
  currency: string;
  metadata: ProcessorMetadata;
  description?: string;
  receipt_email?: string | null;
  idempotencyKey: string;
}

export interface PaymentIntentResult {
  id: string;
  client_secret: string;
}

export interface CheckoutLineItem {
  name: string;
  amount_cents: number;
  quantity?: number;
}

export interface CreateCheckoutInput {
  mode: 'payment' | 'subscription' | 'setup';
  currency: string;
  line_items: CheckoutLineItem[];
  /** Subscription mode: the billing interval of every line item. */
  interval?: 'month' | 'year';
  metadata: ProcessorMetadata;
  success_url: string;
  cancel_url: string;
  customer_email?: string | null;
  idempotencyKey: string;
}

export interface CheckoutSessionResult {
  id: string;
  url: string;
}

/** A SetupIntent that saves a card for later off-session charges, on a customer created with it. */
export interface CreateSetupIntentInput {
  email?: string | null;
  metadata: ProcessorMetadata;
  idempotencyKey: string;
}

export interface SetupIntentResult {
  id: string;
  client_secret: string;
  customer: string;
}

/**
 * A subscription of one recurring price. With `default_payment_method` (a card saved on
 * `customer`) the first invoice is charged at once, off session; without it the subscription
 * waits for its first invoice to be paid with `client_secret` (Stripe.js / a native SDK).
 */
export interface CreateSubscriptionInput {
  /** An existing customer; without one a customer is created with `email`. */
  customer?: string | null;
  email?: string | null;
  default_payment_method?: string | null;
  product_name: string;
  amount_cents: number;
  currency: string;
  interval: 'month' | 'year';
  metadata: ProcessorMetadata;
  idempotencyKey: string;
}

export interface SubscriptionResult {
  id: string;
  customer: string;
  status: string;
  latest_invoice: string | null;
  /** The first invoice's payment secret while it still needs paying by the customer, else null. */
  client_secret: string | null;
}

/** A change to a subscription's future invoices (nothing already invoiced changes). */
export interface UpdateSubscriptionInput {
  subscription_id: string;
  /** The whole amount of each future invoice; unchanged when absent. */
  amount_cents?: number;
  /** true: future invoices are not collected until resumed (Stripe's pause_collection); false: resumed. */
  paused?: boolean;
  idempotencyKey: string;
}

export interface CancelSubscriptionInput {
  subscription_id: string;
  idempotencyKey: string;
}

export interface ConnectedAccount {
  id: string;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
}

export interface ProcessorPayout {
  id: string;
  amount_cents: number;
  currency: string;
  status: 'pending' | 'in_transit' | 'paid' | 'failed' | 'canceled';
  arrival_date: string | null;
}

/** What to ask the processor about: the object a payment still pending started with. */
export interface PaymentLookup {
  kind: 'payment_intent' | 'checkout_session' | 'subscription' | 'invoice' | 'setup_intent';
  id: string;
}

/**
 * What a balance transaction moved, in the ledger's terms: a charge (gross, its fee inside),
 * a refund, a dispute (or its reversal), a transfer to a connected account or its reversal,
 * a payout, a processor fee of its own, or anything else.
 */
export type BalanceMove = 'charge' | 'refund' | 'dispute' | 'transfer' | 'transfer_reversal' | 'payout' | 'fee' | 'other';

/** One movement of processor money (Stripe's balance transaction), amounts signed as the processor reports them. */
export interface BalanceTransaction {
  id: string;
  /** The processor's own type (`charge`, `refund`, `transfer_refund`, ...). */
  type: string;
  move: BalanceMove;
  /**
   * The processor id a ledger group records for this movement: the PaymentIntent of a charge,
   * refund or dispute; the transfer, reversal or payout itself. Null when there is none.
   */
  ref: string | null;
  amount_cents: number;
  fee_cents: number;
  net_cents: number;
  currency: string;
  created: Date;
}

export interface PaymentProcessor {
  readonly name: 'stripe' | 'sandbox';
  createPaymentIntent(input: CreatePaymentIntentInput): Promise<PaymentIntentResult>;
  createCheckoutSession(input: CreateCheckoutInput): Promise<CheckoutSessionResult>;
  createSetupIntent(input: CreateSetupIntentInput): Promise<SetupIntentResult>;
  createSubscription(input: CreateSubscriptionInput): Promise<SubscriptionResult>;
  /** Changes a subscription from its next invoice on (no proration); `customer.subscription.updated` follows. */
  updateSubscription(input: UpdateSubscriptionInput): Promise<void>;
  /** Cancels a subscription at once (an already canceled one is left as it is); `customer.subscription.deleted` follows. */
  cancelSubscription(input: CancelSubscriptionInput): Promise<void>;
  /**
   * The row a PaymentIntent's metadata names (null when the processor does not know the intent
   * or its metadata names none): links a refund or dispute that arrives before any event naming
   * the row (a Checkout gift's PaymentIntent id is learnt only from its success) back to the row;
   * with a gift's whole description when its metadata carries one (a dispute names no metadata,
   * so a gift started after a restore point is rebuilt from here).
   */
  paymentIntentRef(paymentIntentId: string): Promise<PaymentRef | null>;
  /** The processor's fee on the charge behind a PaymentIntent, in cents (0 when unknown yet). */
  feeForPaymentIntent(paymentIntentId: string): Promise<number>;
  createConnectedAccount(input: { email?: string | null; metadata: ProcessorMetadata; idempotencyKey: string }): Promise<ConnectedAccount>;
  retrieveConnectedAccount(accountId: string): Promise<ConnectedAccount>;
  /** A link to the processor's hosted onboarding for an account. */
  createOnboardingLink(accountId: string, urls: { refresh_url: string; return_url: string }): Promise<string>;
  /** A link to the processor's dashboard for an account (Express login link). */
  createDashboardLink(accountId: string): Promise<string>;
  createTransfer(input: {
    amount_cents: number;
    currency: string;
    destination: string;
    metadata: ProcessorMetadata;
    idempotencyKey: string;
  }): Promise<{ id: string }>;
  /**
   * Takes (part of) a transfer back from the connected account (Stripe: a transfer reversal).
   * The connected balance may go negative: the processor recovers it from later transfers.
   */
  createTransferReversal(input: { transfer_id: string; amount_cents: number; metadata: ProcessorMetadata; idempotencyKey: string }): Promise<{ id: string }>;
  /** Recent payouts of a connected account (for the payout refresh repair). */
  listPayouts(accountId: string, limit?: number): Promise<ProcessorPayout[]>;
  /**
   * Verifies a webhook delivery's signature (the stripe SDK) and translates it into a typed
   * payment event (events.ts). Throws WebhookPayloadError for a signed body it cannot read, any
   * other error for a bad or missing signature.
   */
  parseWebhook(rawBody: Buffer | string, signature: string | undefined): Promise<PaymentEvent>;
  /**
   * What the processor says now about a payment still pending, as the typed events a webhook
   * would have brought (ids `recheck_<object>_<type>`, so asking twice changes nothing): a
   * succeeded or declined PaymentIntent, a completed (with its first invoice in subscription
   * mode) or expired Checkout Session, a paid invoice, a SetupIntent that saved its card.
   * Empty: still pending.
   */
  retrievePaymentState(lookup: PaymentLookup): Promise<PaymentEvent[]>;
  /**
   * The processor's events of `types` created at or after `since` (Stripe GET /v1/events,
   * auto-paginated), as typed events with their real ids; unreadable ones are skipped. They come
   * in `eventListOrder`.
   */
  listEventsSince(since: Date, types: readonly string[]): AsyncIterable<PaymentEvent>;
  /**
   * The order listEventsSince yields: Stripe lists newest first, and its `created` is in whole
   * seconds, so events of one second can only be put back in order by reversing the list.
   */
  readonly eventListOrder: 'newest-first' | 'oldest-first';
  /**
   * The balance transactions created in [from, to) (Stripe GET /v1/balance_transactions,
   * auto-paginated), one page at a time: never the whole day in memory.
   */
  listBalanceTransactions(from: Date, to: Date): AsyncIterable<BalanceTransaction[]>;
  /** The secret webhook deliveries are signed with (STRIPE_WEBHOOK_SECRET, or the sandbox's generated one). */
  webhookSecret(): Promise<string>;
}
