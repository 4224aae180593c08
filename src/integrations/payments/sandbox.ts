import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import type {
  CheckoutSessionResult,
  ConnectedAccount,
  CreateCheckoutInput,
  CreatePaymentIntentInput,
  CreateSetupIntentInput,
  CreateSubscriptionInput,
  BalanceTransaction,
  PaymentIntentResult,
  PaymentLookup,
  PaymentProcessor,
  ProcessorPayout,
  SetupIntentResult,
  SubscriptionResult,
  CancelSubscriptionInput,
  UpdateSubscriptionInput,
} from './port';
import { cancelSubscription, updateSubscription } from './sandbox-renewals';
import { deliverEvents } from './sandbox-delivery';
import { sessionView } from './sandbox-objects';
import { createSetupIntent, createSubscription } from './sandbox-subscriptions';
import { sandboxFee } from './sandbox-fees';
import { createObject, getObject, listObjects } from './sandbox.repo';
import { schedulePayout } from './sandbox-payouts';
import { configuredWebhookSecrets, sandboxWebhookSecret } from './webhook-secret';
import type { PaymentEvent, PaymentRef } from './events';
import { parseSignedEvent, refOf, toPaymentEvent } from './stripe-events';
import { intentStateEvents, invoiceStateEvents, sessionStateEvents, setupStateEvents } from './stripe-state';
import { listSandboxBalanceTxns, recordBalanceTxn } from './sandbox-balance';
import type { SandboxEvent } from './sandbox-delivery';

const rid = (prefix: string) => `${prefix}_sb_${randomBytes(12).toString('hex')}`;

/**
 * The built-in processor used when STRIPE_SECRET_KEY is unset. It keeps its objects in the
 * database and, from its pages under /sandbox (see the sandbox module), delivers events signed
 * exactly as Stripe signs them to the service's own webhook route over HTTP.
 */
export class SandboxProcessor implements PaymentProcessor {
  readonly name = 'sandbox' as const;
  readonly eventListOrder = 'oldest-first' as const;
  // Only the webhook helpers are used; no request ever leaves the process.
  private readonly stripe = new Stripe('sk_test_sandbox_offline');
  private secret: Promise<string> | null = null;

  constructor(private readonly db: Db, private readonly config: Config) {}

  webhookSecret(): Promise<string> {
    const configured = configuredWebhookSecrets(this.config.STRIPE_WEBHOOK_SECRET);
    if (configured.length) return Promise.resolve(configured[0]!);
    this.secret ??= sandboxWebhookSecret(this.db).catch((err) => {
      this.secret = null;
      throw err;
    });
    return this.secret;
  }

  async parseWebhook(rawBody: Buffer | string, signature: string | undefined): Promise<PaymentEvent> {
    const configured = configuredWebhookSecrets(this.config.STRIPE_WEBHOOK_SECRET);
    return parseSignedEvent(this.stripe, rawBody, signature, configured.length ? configured : [await this.webhookSecret()]);
  }

  async createPaymentIntent(input: CreatePaymentIntentInput): Promise<PaymentIntentResult> {
    const id = rid('pi');
    const obj = await createObject(
      this.db,
      'payment_intent',
      id,
      {
        id,
        object: 'payment_intent',
        amount: input.amount_cents,
        currency: input.currency.toLowerCase(),
        status: 'requires_payment_method',
        metadata: input.metadata,
        description: input.description ?? null,
        receipt_email: input.receipt_email ?? null,
        client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
        latest_charge: null,
      },
      input.idempotencyKey,
    );
    return { id: obj.data.id, client_secret: obj.data.client_secret };
  }

  async createCheckoutSession(input: CreateCheckoutInput): Promise<CheckoutSessionResult> {
    const id = rid('cs');
    const amount = input.line_items.reduce((s, li) => s + li.amount_cents * (li.quantity ?? 1), 0);
    const obj = await createObject(
      this.db,
      'checkout_session',
      id,
      {
        id,
        object: 'checkout.session',
        mode: input.mode,
        amount_total: amount,
        currency: input.currency.toLowerCase(),
        line_items: input.line_items,
        interval: input.interval ?? null,
        metadata: input.metadata,
        success_url: input.success_url,
        cancel_url: input.cancel_url,
        customer_email: input.customer_email ?? null,
        status: 'open',
        payment_status: 'unpaid',
        payment_intent: null,
        subscription: null,
        url: `${this.config.PUBLIC_URL}/sandbox/checkout/${id}`,
      },
      input.idempotencyKey,
    );
    return { id: obj.data.id, url: obj.data.url };
  }

  createSetupIntent(input: CreateSetupIntentInput): Promise<SetupIntentResult> {
    return createSetupIntent(this.db, input);
  }

  async createSubscription(input: CreateSubscriptionInput): Promise<SubscriptionResult> {
    const { events, ...sub } = await createSubscription(this.db, input);
    // Stripe reports the off-session charge by webhook, after the call answers: so does the
    // sandbox (the events are recorded, so a failed delivery is redelivered by its job).
    if (events.length) {
      setImmediate(() => {
        deliverEvents({ config: this.config, db: this.db, payments: this }, events).catch(() => undefined);
      });
    }
    return sub;
  }

  async updateSubscription(input: UpdateSubscriptionInput): Promise<void> {
    this.deliverLater(await updateSubscription(this.db, input));
  }

  async cancelSubscription(input: CancelSubscriptionInput): Promise<void> {
    this.deliverLater(await cancelSubscription(this.db, input));
  }

  /** Stripe reports a change by webhook after the call answers; so does the sandbox (recorded events are redelivered by a job when this fails). */
  private deliverLater(events: SandboxEvent[]): void {
    if (!events.length) return;
    setImmediate(() => {
      deliverEvents({ config: this.config, db: this.db, payments: this }, events).catch(() => undefined);
    });
  }

  async retrievePaymentState(lookup: PaymentLookup): Promise<PaymentEvent[]> {
    switch (lookup.kind) {
      case 'payment_intent': {
        const pi = await getObject(this.db, lookup.id, 'payment_intent');
        return pi ? intentStateEvents(pi.data) : [];
      }
      case 'checkout_session': {
        const s = await getObject(this.db, lookup.id, 'checkout_session');
        if (!s) return [];
        const inv = s.data.status === 'complete' && s.data.subscription ? await this.latestInvoice(String(s.data.subscription)) : null;
        return sessionStateEvents(sessionView(s.data), inv);
      }
      case 'subscription': {
        const inv = await this.latestInvoice(lookup.id);
        return inv ? invoiceStateEvents(inv) : [];
      }
      case 'invoice': {
        const inv = await getObject(this.db, lookup.id, 'invoice');
        return inv ? invoiceStateEvents(inv.data) : [];
      }
      case 'setup_intent': {
        const si = await getObject(this.db, lookup.id, 'setup_intent');
        return si ? setupStateEvents(si.data) : [];
      }
    }
  }

  private async latestInvoice(subscriptionId: string): Promise<Record<string, any> | null> {
    const [inv] = await listObjects(this.db, 'invoice', { subscription: subscriptionId }, 1);
    return inv?.data ?? null;
  }

  /** The sandbox's recorded events (delivered or not) from `since`, oldest first, a page at a time. */
  async *listEventsSince(since: Date, types: readonly string[]): AsyncIterable<PaymentEvent> {
    const wanted = new Set(types);
    let after: { at: string; id: string } | null = null;
    for (;;) {
      const q = this.db('sandbox_objects').where({ kind: 'event' }).andWhere('created_at', '>=', since);
      if (after) q.andWhereRaw('(created_at, id) > (?::timestamptz, ?)', [after.at, after.id]);
      const rows: Array<{ id: string; data: { event: SandboxEvent }; at: string }> = await q
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .limit(500)
        .select('id', 'data', this.db.raw('created_at::text as at'));
      for (const r of rows) {
        if (!wanted.has(r.data.event.type)) continue;
        try {
          yield toPaymentEvent(r.data.event);
        } catch {
          // Unreadable: skipped, as a delivery of it would be refused.
        }
      }
      if (rows.length < 500) return;
      after = { at: rows[rows.length - 1]!.at, id: rows[rows.length - 1]!.id };
    }
  }

  listBalanceTransactions(from: Date, to: Date): AsyncIterable<BalanceTransaction[]> {
    return listSandboxBalanceTxns(this.db, from, to);
  }

  async paymentIntentRef(paymentIntentId: string): Promise<PaymentRef | null> {
    const pi = await getObject(this.db, paymentIntentId, 'payment_intent');
    return pi ? refOf(pi.data.metadata, pi.data) : null;
  }

  async feeForPaymentIntent(paymentIntentId: string): Promise<number> {
    const pi = await getObject(this.db, paymentIntentId, 'payment_intent');
    return pi && pi.data.status === 'succeeded' ? sandboxFee(Number(pi.data.amount)) : 0;
  }

  async createConnectedAccount(input: { email?: string | null; metadata: Record<string, string>; idempotencyKey: string }): Promise<ConnectedAccount> {
    const id = `acct_sb_${randomBytes(8).toString('hex')}`;
    const obj = await createObject(
      this.db,
      'account',
      id,
      { id, object: 'account', email: input.email ?? null, metadata: input.metadata, charges_enabled: false, payouts_enabled: false, details_submitted: false },
      input.idempotencyKey,
    );
    return pickAccount(obj.data);
  }

  async retrieveConnectedAccount(accountId: string): Promise<ConnectedAccount> {
    const obj = await getObject(this.db, accountId, 'account');
    if (!obj) throw new Error(`No such account: ${accountId}`);
    return pickAccount(obj.data);
  }

  async createOnboardingLink(accountId: string): Promise<string> {
    return `${this.config.PUBLIC_URL}/sandbox/connect/${encodeURIComponent(accountId)}`;
  }

  async createDashboardLink(accountId: string): Promise<string> {
    return `${this.config.PUBLIC_URL}/sandbox/connect/${encodeURIComponent(accountId)}`;
  }

  async createTransfer(input: { amount_cents: number; currency: string; destination: string; metadata: Record<string, string>; idempotencyKey: string }) {
    const id = rid('tr');
    const obj = await createObject(
      this.db,
      'transfer',
      id,
      { id, object: 'transfer', amount: input.amount_cents, currency: input.currency.toLowerCase(), destination: input.destination, metadata: input.metadata },
      input.idempotencyKey,
    );
    // The platform's balance pays the transfer (a transfer balance transaction, like Stripe's).
    if (obj.id === id) await recordBalanceTxn(this.db, { type: 'transfer', amount: -input.amount_cents, currency: input.currency, source: { id, object: 'transfer' } });
    // The connected balance grew: pay it out, as Stripe's automatic payouts would (after a delay).
    await schedulePayout(this.db, input.destination, input.currency, this.config.SANDBOX_PAYOUT_DELAY_S);
    return { id: obj.id };
  }

  async createTransferReversal(input: { transfer_id: string; amount_cents: number; metadata: Record<string, string>; idempotencyKey: string }) {
    const tr = await getObject(this.db, input.transfer_id, 'transfer');
    if (!tr) throw new Error(`No such transfer: ${input.transfer_id}`);
    const id = rid('trr');
    // The reversal names the transfer's destination, so the account's balance (sandbox-payouts.ts)
    // drops by it, below zero if the money was paid out already, as Stripe allows.
    const obj = await createObject(
      this.db,
      'transfer_reversal',
      id,
      { id, object: 'transfer_reversal', amount: input.amount_cents, currency: tr.data.currency, transfer: tr.id, destination: tr.data.destination, metadata: input.metadata },
      input.idempotencyKey,
    );
    if (obj.id === id) await recordBalanceTxn(this.db, { type: 'transfer_refund', amount: input.amount_cents, currency: String(tr.data.currency), source: { id, object: 'transfer_reversal' } });
    return { id: obj.id };
  }

  async listPayouts(accountId: string, limit = 100): Promise<ProcessorPayout[]> {
    const rows = await listObjects(this.db, 'payout', { account: accountId }, limit);
    return rows.map((r) => ({
      id: r.id,
      amount_cents: Number(r.data.amount),
      currency: r.data.currency,
      status: r.data.status,
      // Stored as Stripe's unix seconds; the port answers a calendar date like the Stripe adapter.
      arrival_date: r.data.arrival_date ? new Date(Number(r.data.arrival_date) * 1000).toISOString().slice(0, 10) : null,
    }));
  }
}

function pickAccount(d: Record<string, any>): ConnectedAccount {
  return { id: d.id, charges_enabled: !!d.charges_enabled, payouts_enabled: !!d.payouts_enabled, details_submitted: !!d.details_submitted };
}
