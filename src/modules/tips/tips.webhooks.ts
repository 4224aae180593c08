import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { ProcessorEvent } from '../../integrations/payments';
import type { WebhookHandler, WebhookHandlerMap } from '../webhooks';
import * as repo from './tips.repo';
import { tipRefunded } from './tips.refunds';
import { settleTipPayment, type Outcome } from './tips.settle';

type Obj = Record<string, any>;
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : typeof v === 'object' && v && typeof (v as Obj).id === 'string' ? (v as Obj).id : null);
const date = (s: unknown): Date | null => (typeof s === 'number' && Number.isFinite(s) ? new Date(s * 1000) : null);

/** The tip an object names in its metadata (its own, or its subscription's on invoices). */
function tipIdOf(o: Obj): string | null {
  const m = o.metadata?.kind === 'tip' ? o.metadata : (o.subscription_details?.metadata ?? o.parent?.subscription_details?.metadata);
  return m?.kind === 'tip' && repo.isUuid(m.tip_id) ? m.tip_id : null;
}

const subscriptionOfInvoice = (inv: Obj): string | null =>
  str(inv.subscription) ?? str(inv.parent?.subscription_details?.subscription) ?? null;

async function tipFor(trx: Knex.Transaction, o: Obj, by: { session?: string | null; subscription?: string | null }) {
  const id = tipIdOf(o);
  if (id) return repo.lockTip(trx, id);
  if (by.session) return repo.lockTipBySession(trx, by.session);
  if (by.subscription) return repo.lockTipBySubscription(trx, by.subscription);
  return undefined;
}

/** The processor's fee, read before the webhook transaction opens; null when it cannot be read now. */
function feePrefetch(piOf: (o: Obj) => string | null): WebhookHandler['prefetch'] {
  return async (ctx: AppContext, event: ProcessorEvent) => {
    const pi = piOf(event.data.object);
    if (!pi) return { fee: null };
    try {
      return { fee: await ctx.payments.feeForPaymentIntent(pi) };
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message, paymentIntent: pi }, 'processor fee of a tip payment unknown');
      return { fee: null };
    }
  };
}
const feeOf = (prefetched: unknown) => Number((prefetched as { fee?: number | null } | undefined)?.fee ?? 0) || 0;

function withPrefetch(handler: WebhookHandler, prefetch: WebhookHandler['prefetch']): WebhookHandler {
  return Object.assign(handler, { prefetch });
}

/** checkout.session.completed / async_payment_succeeded: a one-time tip settles; a monthly one is linked to its subscription. */
const sessionPaid = withPrefetch(
  async (ctx, event, trx, prefetched): Promise<Outcome> => {
    const s = event.data.object;
    const tip = await tipFor(trx, s, { session: str(s.id) });
    if (!tip) return 'ignored';
    const link: Partial<repo.TipRow> = {};
    if (!tip.processor_checkout_session_id && str(s.id)) link.processor_checkout_session_id = str(s.id);
    if (!tip.processor_customer_id && str(s.customer)) link.processor_customer_id = str(s.customer);
    if (!tip.processor_subscription_id && str(s.subscription)) link.processor_subscription_id = str(s.subscription);
    if (Object.keys(link).length) await repo.updateTip(trx, tip.id, link);
    if (s.payment_status !== 'paid') return 'applied'; // an async payment method: its own event settles it
    if (tip.cadence === 'recurring') {
      // The first invoice settles the tip (invoice.paid); a session that names its invoice may settle it first.
      const invoice = str(s.invoice);
      if (!invoice) return 'applied';
      return settleTipPayment(ctx, trx, { ...tip, ...link }, {
        amount_cents: Number(s.amount_total),
        currency: s.currency,
        invoice_id: invoice,
        fee_cents: 0,
        event_id: event.id,
      });
    }
    return settleTipPayment(ctx, trx, { ...tip, ...link }, {
      amount_cents: Number(s.amount_total),
      currency: s.currency,
      session_id: str(s.id),
      payment_intent_id: str(s.payment_intent),
      fee_cents: feeOf(prefetched),
      event_id: event.id,
    });
  },
  feePrefetch((s) => (s.mode === 'payment' && s.payment_status === 'paid' ? str(s.payment_intent) : null)),
);

/** A pending tip whose checkout ended without payment. */
function sessionEnded(next: 'failed' | 'canceled'): WebhookHandler {
  return async (_ctx, event, trx): Promise<Outcome> => {
    const s = event.data.object;
    const tip = await tipFor(trx, s, { session: str(s.id) });
    if (!tip || tip.status !== 'pending') return 'ignored';
    await repo.updateTip(trx, tip.id, { status: next });
    return 'applied';
  };
}

/** invoice.paid: the first payment of a monthly tip, or a renewal (each invoice once). */
const invoicePaid = withPrefetch(
  async (ctx, event, trx, prefetched): Promise<Outcome> => {
    const inv = event.data.object;
    const sub = subscriptionOfInvoice(inv);
    const tip = await tipFor(trx, inv, { subscription: sub });
    if (!tip || tip.cadence !== 'recurring') return 'ignored';
    if (sub && tip.processor_subscription_id && tip.processor_subscription_id !== sub) {
      ctx.log.warn({ tipId: tip.id, subscription: sub, eventId: event.id }, 'invoice of another subscription names this tip; ignored');
      return 'ignored';
    }
    const link: Partial<repo.TipRow> = {};
    if (!tip.processor_subscription_id && sub) link.processor_subscription_id = sub;
    if (!tip.processor_customer_id && str(inv.customer)) link.processor_customer_id = str(inv.customer);
    // Until a subscription event says more, a paid invoice means an active subscription to its period's end.
    if (!tip.subscription_event_at) {
      const end = date(inv.lines?.data?.[0]?.period?.end) ?? (inv.period_end > inv.period_start ? date(inv.period_end) : null);
      if (!tip.subscription_status) link.subscription_status = 'active';
      if (end && (!tip.current_period_end || end > new Date(tip.current_period_end))) link.current_period_end = end;
    }
    if (Object.keys(link).length) await repo.updateTip(trx, tip.id, link);
    return settleTipPayment(ctx, trx, { ...tip, ...link }, {
      amount_cents: Number(inv.amount_paid),
      currency: inv.currency,
      invoice_id: str(inv.id),
      payment_intent_id: str(inv.payment_intent),
      fee_cents: feeOf(prefetched),
      event_id: event.id,
    });
  },
  feePrefetch((inv) => str(inv.payment_intent)),
);

/** invoice.payment_failed: a first payment that failed fails the tip; a failed renewal leaves the paid tip (the subscription's status says past_due). */
const invoiceFailed: WebhookHandler = async (_ctx, event, trx): Promise<Outcome> => {
  const inv = event.data.object;
  const tip = await tipFor(trx, inv, { subscription: subscriptionOfInvoice(inv) });
  if (!tip || tip.cadence !== 'recurring' || tip.status !== 'pending') return 'ignored';
  await repo.updateTip(trx, tip.id, { status: 'failed' });
  return 'applied';
};

/**
 * customer.subscription.updated / .deleted: the receipt's subscription block. Events may arrive
 * in any order: an older one than the last applied changes nothing, and a canceled
 * subscription (terminal at the processor) never turns active again.
 */
function subscriptionChanged(deleted: boolean): WebhookHandler {
  return async (_ctx, event, trx): Promise<Outcome> => {
    const sub = event.data.object;
    const tip = await tipFor(trx, sub, { subscription: str(sub.id) });
    if (!tip || tip.cadence !== 'recurring') return 'ignored';
    const at = date(event.created) ?? new Date();
    if (tip.subscription_event_at && at < new Date(tip.subscription_event_at)) return 'ignored';
    const status = deleted ? 'canceled' : String(sub.status ?? '') || null;
    if (tip.subscription_status === 'canceled' && status !== 'canceled') return 'ignored';
    const patch: Partial<repo.TipRow> = {
      subscription_status: status,
      current_period_end: date(sub.current_period_end ?? sub.items?.data?.[0]?.current_period_end) ?? tip.current_period_end,
      canceled_at: date(sub.canceled_at) ?? (deleted ? (date(sub.ended_at) ?? at) : null),
      subscription_event_at: at,
    };
    if (!tip.processor_subscription_id && str(sub.id)) patch.processor_subscription_id = str(sub.id);
    if (!tip.processor_customer_id && str(sub.customer)) patch.processor_customer_id = str(sub.customer);
    if (deleted && tip.status === 'pending') patch.status = 'canceled';
    await repo.updateTip(trx, tip.id, patch);
    return 'applied';
  };
}

/** The tips module's processor events, merged by `metadata.kind` ('tip') in webhooks/handlers.ts. */
export const tipWebhooks: WebhookHandlerMap = {
  'checkout.session.completed': sessionPaid,
  'checkout.session.async_payment_succeeded': sessionPaid,
  'checkout.session.async_payment_failed': sessionEnded('failed'),
  'checkout.session.expired': sessionEnded('canceled'),
  'invoice.paid': invoicePaid,
  'invoice.payment_failed': invoiceFailed,
  'customer.subscription.updated': subscriptionChanged(false),
  'customer.subscription.deleted': subscriptionChanged(true),
  'charge.refunded': tipRefunded,
};
