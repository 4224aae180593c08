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
import { configuredWebhookSecrets, sandboxWebhookSecret } from './webhook-secret';
import type { PaymentEvent, PaymentRef } from './events';
import { toBalanceTransaction } from './stripe-balance';
import { connectedAccountOf, hostOptions, payoutOf } from './stripe-connect';
import { parseSignedEvent, toPaymentEvent } from './stripe-events';
import { paymentIntentRef } from './stripe-gift';
import { intentStateEvents, invoiceStateEvents, sessionStateEvents, setupStateEvents } from './stripe-state';

type Obj = Record<string, unknown>;
const PAGE = 100;

/** The real processor, through the official SDK. */
export class StripeProcessor implements PaymentProcessor {
  readonly name = 'stripe' as const;
  readonly eventListOrder = 'newest-first' as const;
  private readonly stripe: Stripe;

  constructor(private readonly config: Config, private readonly db: Db) {
    this.stripe = new Stripe(config.STRIPE_SECRET_KEY!, { maxNetworkRetries: 2, ...hostOptions(config.STRIPE_API_URL) });
  }

  async webhookSecret(): Promise<string> {
    return (await this.webhookSecrets())[0]!;
  }

  private webhookSecrets(): Promise<string[]> {
    const configured = configuredWebhookSecrets(this.config.STRIPE_WEBHOOK_SECRET);
    // Without a configured secret (a Stripe-compatible test server) the generated one is used.
    return configured.length ? Promise.resolve(configured) : sandboxWebhookSecret(this.db).then((s) => [s]);
  }

  async parseWebhook(rawBody: Buffer | string, signature: string | undefined): Promise<PaymentEvent> {
    return parseSignedEvent(this.stripe, rawBody, signature, await this.webhookSecrets());
  }

  async retrievePaymentState(lookup: PaymentLookup): Promise<PaymentEvent[]> {
    try {
      switch (lookup.kind) {
        case 'payment_intent':
          // The charge's balance transaction comes along: the settlement needs its fee.
          return intentStateEvents((await this.stripe.paymentIntents.retrieve(lookup.id, { expand: ['latest_charge.balance_transaction'] })) as unknown as Obj);
        case 'checkout_session': {
          const s = (await this.stripe.checkout.sessions.retrieve(lookup.id)) as unknown as Obj;
          const sub = s.status === 'complete' && s.mode === 'subscription' && typeof s.subscription === 'string' ? s.subscription : null;
          return sessionStateEvents(s, sub ? await this.latestInvoice(sub) : null);
        }
        case 'subscription': {
          const inv = await this.latestInvoice(lookup.id);
          return inv ? invoiceStateEvents(inv) : [];
        }
        case 'invoice':
          return invoiceStateEvents((await this.stripe.invoices.retrieve(lookup.id)) as unknown as Obj);
        case 'setup_intent':
          return setupStateEvents((await this.stripe.setupIntents.retrieve(lookup.id)) as unknown as Obj);
      }
    } catch (err) {
      // An object the processor does not know (a test key's, a deleted one) has nothing to say.
      if ((err as { statusCode?: number }).statusCode === 404) return [];
      throw err;
    }
  }

  private async latestInvoice(subscriptionId: string): Promise<Obj | null> {
    const sub = await this.stripe.subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice'] });
    const inv = sub.latest_invoice;
    if (!inv || typeof inv !== 'object') return null;
    // The subscription's metadata names the row; older invoices carry it at the top.
    return { ...(inv as unknown as Obj), subscription: sub.id, subscription_details: { metadata: sub.metadata } };
  }

  async *listEventsSince(since: Date, types: readonly string[]): AsyncIterable<PaymentEvent> {
    const list = this.stripe.events.list({ created: { gte: Math.floor(since.getTime() / 1000) }, types: [...types], limit: PAGE });
    for await (const ev of list) {
      try {
        yield toPaymentEvent(ev);
      } catch {
        // Unreadable (the webhook route answers such a delivery 400 and logs it): nothing to apply.
      }
    }
  }

  async *listBalanceTransactions(from: Date, to: Date): AsyncIterable<BalanceTransaction[]> {
    const list = this.stripe.balanceTransactions.list({
      created: { gte: Math.floor(from.getTime() / 1000), lt: Math.floor(to.getTime() / 1000) },
      limit: PAGE,
      expand: ['data.source'],
    });
    let page: BalanceTransaction[] = [];
    for await (const bt of list) {
      page.push(toBalanceTransaction(bt as unknown as Obj));
      if (page.length === PAGE) {
        yield page;
        page = [];
      }
    }
    if (page.length) yield page;
  }

  async createPaymentIntent(input: CreatePaymentIntentInput): Promise<PaymentIntentResult> {
    const pi = await this.stripe.paymentIntents.create(
      {
        amount: input.amount_cents,
        currency: input.currency.toLowerCase(),
        metadata: input.metadata,
        description: input.description,
        receipt_email: input.receipt_email ?? undefined,
        automatic_payment_methods: { enabled: true },
      },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: pi.id, client_secret: pi.client_secret ?? '' };
  }

  async createCheckoutSession(input: CreateCheckoutInput): Promise<CheckoutSessionResult> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: input.mode,
        success_url: input.success_url,
        cancel_url: input.cancel_url,
        customer_email: input.customer_email ?? undefined,
        metadata: input.metadata,
        ...(input.mode === 'payment' ? { payment_intent_data: { metadata: input.metadata } } : {}),
        ...(input.mode === 'subscription' ? { subscription_data: { metadata: input.metadata } } : {}),
        ...(input.mode === 'setup' ? { currency: input.currency.toLowerCase() } : {}),
        line_items:
          input.mode === 'setup'
            ? undefined
            : input.line_items.map((li) => ({
                quantity: li.quantity ?? 1,
                price_data: {
                  currency: input.currency.toLowerCase(),
                  unit_amount: li.amount_cents,
                  product_data: { name: li.name },
                  ...(input.mode === 'subscription' ? { recurring: { interval: input.interval ?? 'month' } } : {}),
                },
              })),
      },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: session.id, url: session.url ?? '' };
  }

  private async customer(email: string | null | undefined, metadata: Record<string, string>, idempotencyKey: string): Promise<string> {
    const c = await this.stripe.customers.create({ email: email ?? undefined, metadata }, { idempotencyKey: `${idempotencyKey}:customer` });
    return c.id;
  }

  async createSetupIntent(input: CreateSetupIntentInput): Promise<SetupIntentResult> {
    // A card saved without a customer could never be charged again, so the customer comes first.
    const customer = await this.customer(input.email, input.metadata, input.idempotencyKey);
    const si = await this.stripe.setupIntents.create(
      { customer, usage: 'off_session', metadata: input.metadata, automatic_payment_methods: { enabled: true } },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: si.id, client_secret: si.client_secret ?? '', customer };
  }

  async createSubscription(input: CreateSubscriptionInput): Promise<SubscriptionResult> {
    const customer = input.customer ?? (await this.customer(input.email, input.metadata, input.idempotencyKey));
    // Inline prices need a product id (subscription items take no product_data).
    const product = await this.stripe.products.create({ name: input.product_name, metadata: input.metadata }, { idempotencyKey: `${input.idempotencyKey}:product` });
    const saved = input.default_payment_method;
    const sub = await this.stripe.subscriptions.create(
      {
        customer,
        items: [{ price_data: { currency: input.currency.toLowerCase(), product: product.id, unit_amount: input.amount_cents, recurring: { interval: input.interval } } }],
        metadata: input.metadata,
        ...(saved
          ? { default_payment_method: saved, off_session: true, payment_behavior: 'allow_incomplete' as const }
          : { payment_behavior: 'default_incomplete' as const, payment_settings: { save_default_payment_method: 'on_subscription' as const } }),
        expand: ['latest_invoice.confirmation_secret'],
      },
      { idempotencyKey: input.idempotencyKey },
    );
    const invoice = sub.latest_invoice as Stripe.Invoice | string | null;
    const inv = invoice && typeof invoice === 'object' ? invoice : null;
    return {
      id: sub.id,
      customer,
      status: sub.status,
      latest_invoice: inv ? (inv.id ?? null) : (invoice as string | null),
      client_secret: saved ? null : (inv?.confirmation_secret?.client_secret ?? null),
    };
  }

  async updateSubscription(input: UpdateSubscriptionInput): Promise<void> {
    const params: Stripe.SubscriptionUpdateParams = { proration_behavior: 'none' };
    if (input.amount_cents !== undefined) {
      // One price for the whole amount from the next invoice: the first item takes it, any other item goes.
      const sub = await this.stripe.subscriptions.retrieve(input.subscription_id);
      const [first, ...rest] = sub.items.data;
      if (!first) throw new Error(`subscription ${input.subscription_id} has no items`);
      const product = typeof first.price.product === 'string' ? first.price.product : first.price.product.id;
      params.items = [
        { id: first.id, price_data: { currency: first.price.currency, product, unit_amount: input.amount_cents, recurring: { interval: first.price.recurring?.interval ?? 'month' } } },
        ...rest.map((i) => ({ id: i.id, deleted: true })),
      ];
    }
    if (input.paused !== undefined) params.pause_collection = input.paused ? { behavior: 'void' } : '';
    await this.stripe.subscriptions.update(input.subscription_id, params, { idempotencyKey: input.idempotencyKey });
  }

  async cancelSubscription(input: CancelSubscriptionInput): Promise<void> {
    try {
      await this.stripe.subscriptions.cancel(input.subscription_id, {}, { idempotencyKey: input.idempotencyKey });
    } catch (err) {
      // Already canceled (or gone): what was asked for holds.
      const e = err as { statusCode?: number; code?: string };
      if (e.statusCode === 404 || e.code === 'resource_missing') return;
      throw err;
    }
  }

  paymentIntentRef(paymentIntentId: string): Promise<PaymentRef | null> {
    return paymentIntentRef(this.stripe, paymentIntentId);
  }

  async feeForPaymentIntent(paymentIntentId: string): Promise<number> {
    const pi = await this.stripe.paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge.balance_transaction'] });
    const charge = pi.latest_charge as Stripe.Charge | null;
    const bt = charge && typeof charge === 'object' ? (charge.balance_transaction as Stripe.BalanceTransaction | null) : null;
    return bt && typeof bt === 'object' ? bt.fee : 0;
  }

  async createConnectedAccount(input: { email?: string | null; metadata: Record<string, string>; idempotencyKey: string }): Promise<ConnectedAccount> {
    const acct = await this.stripe.accounts.create(
      // Separate charges and transfers: the platform charges, the account only receives transfers
      // (Stripe refuses an Express account that requests no capability).
      { type: 'express', email: input.email ?? undefined, metadata: input.metadata, capabilities: { transfers: { requested: true } } },
      { idempotencyKey: input.idempotencyKey },
    );
    return connectedAccountOf(acct);
  }

  async retrieveConnectedAccount(accountId: string): Promise<ConnectedAccount> {
    return connectedAccountOf(await this.stripe.accounts.retrieve(accountId));
  }

  async createOnboardingLink(accountId: string, urls: { refresh_url: string; return_url: string }): Promise<string> {
    const link = await this.stripe.accountLinks.create({ account: accountId, type: 'account_onboarding', ...urls });
    return link.url;
  }

  async createDashboardLink(accountId: string): Promise<string> {
    return (await this.stripe.accounts.createLoginLink(accountId)).url;
  }

  async createTransfer(input: { amount_cents: number; currency: string; destination: string; metadata: Record<string, string>; idempotencyKey: string }) {
    const tr = await this.stripe.transfers.create(
      { amount: input.amount_cents, currency: input.currency.toLowerCase(), destination: input.destination, metadata: input.metadata },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: tr.id };
  }

  async createTransferReversal(input: { transfer_id: string; amount_cents: number; metadata: Record<string, string>; idempotencyKey: string }) {
    const rev = await this.stripe.transfers.createReversal(
      input.transfer_id,
      { amount: input.amount_cents, metadata: input.metadata },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: rev.id };
  }

  async listPayouts(accountId: string, limit = 100): Promise<ProcessorPayout[]> {
    const page = await this.stripe.payouts.list({ limit: Math.min(100, limit) }, { stripeAccount: accountId });
    return page.data.map(payoutOf);
  }
}
