import type { Knex } from 'knex';
import type { CheckoutCompleted, CheckoutFailed, InvoicePaid, InvoicePaymentFailed, PaymentEvent, SubscriptionChanged } from '../../integrations/payments';
import { withPaymentFee, type WebhookHandler, type WebhookHandlerMap } from '../webhooks';
import * as repo from './tips.repo';
import { rebuildTip } from './tips.rebuild';
import { tipRefunded } from './tips.refunds';
import { settleTipPayment, type Outcome } from './tips.settle';

/** The tip an event names: its ref (the object's metadata, or its subscription's on invoices). */
const tipIdOf = (e: PaymentEvent): string | null => (e.ref?.kind === 'tip' ? e.ref.id : null);

async function tipFor(trx: Knex.Transaction, e: PaymentEvent, by: { session?: string | null; subscription?: string | null }) {
  const id = tipIdOf(e);
  if (id) return repo.lockTip(trx, id);
  if (by.session) return repo.lockTipBySession(trx, by.session);
  if (by.subscription) return repo.lockTipBySubscription(trx, by.subscription);
  return undefined;
}

/** CheckoutCompleted: a one-time tip settles; a monthly one is linked to its subscription. */
const sessionPaid = withPaymentFee<CheckoutCompleted>(
  (s) => ({ paymentIntentId: s.mode === 'payment' && s.paid ? s.payment_intent_id : null, amountCents: s.amount_cents }),
  async (ctx, s, trx, fee): Promise<Outcome> => {
    const tip = (await tipFor(trx, s, { session: s.session_id })) ?? (await rebuildTip(ctx, trx, s, s.session_id));
    if (!tip) return 'ignored';
    const link: Partial<repo.TipRow> = {};
    if (!tip.processor_checkout_session_id) link.processor_checkout_session_id = s.session_id;
    if (!tip.processor_customer_id && s.customer_id) link.processor_customer_id = s.customer_id;
    if (!tip.processor_subscription_id && s.subscription_id) link.processor_subscription_id = s.subscription_id;
    if (Object.keys(link).length) await repo.updateTip(trx, tip.id, link);
    if (!s.paid) return 'applied'; // an async payment method: its own event settles it
    const amount = s.amount_cents ?? NaN;
    // A monthly tip is settled by its first invoice (InvoicePaid), which names the PaymentIntent
    // and so the fee and the processor id reconciliation matches; the session names neither.
    if (tip.cadence === 'recurring') return 'applied';
    return settleTipPayment(ctx, trx, { ...tip, ...link }, {
      amount_cents: amount,
      currency: s.currency,
      session_id: s.session_id,
      payment_intent_id: s.payment_intent_id,
      fee_cents: fee,
      event_id: s.id,
    });
  },
);

/** A pending tip whose checkout ended without payment: failed (async payment) or canceled (expired). */
const sessionEnded: WebhookHandler<CheckoutFailed> = async (_ctx, s, trx): Promise<Outcome> => {
  const tip = await tipFor(trx, s, { session: s.session_id });
  if (!tip || tip.status !== 'pending') return 'ignored';
  await repo.updateTip(trx, tip.id, { status: s.reason === 'expired' ? 'canceled' : 'failed' });
  return 'applied';
};

/** invoice.paid: the first payment of a monthly tip, or a renewal (each invoice once). */
const invoicePaid = withPaymentFee<InvoicePaid>(
  (inv) => ({ paymentIntentId: inv.payment_intent_id, amountCents: inv.amount_cents }),
  async (ctx, inv, trx, fee): Promise<Outcome> => {
    const sub = inv.subscription_id;
    const tip = (await tipFor(trx, inv, { subscription: sub })) ?? (await rebuildTip(ctx, trx, inv, null));
    if (!tip || tip.cadence !== 'recurring') return 'ignored';
    if (sub && tip.processor_subscription_id && tip.processor_subscription_id !== sub) {
      ctx.log.warn({ tipId: tip.id, subscription: sub, eventId: inv.id }, 'invoice of another subscription names this tip; ignored');
      return 'ignored';
    }
    const link: Partial<repo.TipRow> = {};
    if (!tip.processor_subscription_id && sub) link.processor_subscription_id = sub;
    if (!tip.processor_customer_id && inv.customer_id) link.processor_customer_id = inv.customer_id;
    // Until a subscription event says more, a paid invoice means an active subscription to its period's end.
    if (!tip.subscription_event_at) {
      const end = inv.period_end;
      if (!tip.subscription_status) link.subscription_status = 'active';
      if (end && (!tip.current_period_end || end > new Date(tip.current_period_end))) link.current_period_end = end;
    }
    if (Object.keys(link).length) await repo.updateTip(trx, tip.id, link);
    return settleTipPayment(ctx, trx, { ...tip, ...link }, {
      amount_cents: inv.amount_cents,
      currency: inv.currency,
      invoice_id: inv.invoice_id,
      payment_intent_id: inv.payment_intent_id,
      fee_cents: fee,
      event_id: inv.id,
    });
  },
);

/** invoice.payment_failed: a first payment that failed fails the tip; a failed renewal leaves the paid tip (the subscription's status says past_due). */
const invoiceFailed: WebhookHandler<InvoicePaymentFailed> = async (_ctx, inv, trx): Promise<Outcome> => {
  const tip = await tipFor(trx, inv, { subscription: inv.subscription_id });
  if (!tip || tip.cadence !== 'recurring' || tip.status !== 'pending') return 'ignored';
  await repo.updateTip(trx, tip.id, { status: 'failed' });
  return 'applied';
};

/**
 * SubscriptionChanged (updated or deleted): the receipt's subscription block. Events may arrive
 * in any order: an older one than the last applied changes nothing, and a canceled
 * subscription (terminal at the processor) never turns active again.
 */
const subscriptionChanged: WebhookHandler<SubscriptionChanged> = async (_ctx, sub, trx): Promise<Outcome> => {
  const tip = await tipFor(trx, sub, { subscription: sub.subscription_id });
  if (!tip || tip.cadence !== 'recurring') return 'ignored';
  const at = sub.created;
  if (tip.subscription_event_at && at < new Date(tip.subscription_event_at)) return 'ignored';
  const status = sub.deleted ? 'canceled' : sub.status;
  if (tip.subscription_status === 'canceled' && status !== 'canceled') return 'ignored';
  const patch: Partial<repo.TipRow> = {
    subscription_status: status,
    current_period_end: sub.current_period_end ?? tip.current_period_end,
    canceled_at: sub.canceled_at ?? (sub.deleted ? (sub.ended_at ?? at) : null),
    subscription_event_at: at,
  };
  if (!tip.processor_subscription_id) patch.processor_subscription_id = sub.subscription_id;
  if (!tip.processor_customer_id && sub.customer_id) patch.processor_customer_id = sub.customer_id;
  if (sub.deleted && tip.status === 'pending') patch.status = 'canceled';
  await repo.updateTip(trx, tip.id, patch);
  return 'applied';
};

/** The tips module's payment events, merged by `ref.kind` ('tip') in src/modules/index.ts. */
export const tipWebhooks: WebhookHandlerMap = {
  CheckoutCompleted: sessionPaid,
  CheckoutFailed: sessionEnded,
  InvoicePaid: invoicePaid,
  InvoicePaymentFailed: invoiceFailed,
  SubscriptionChanged: subscriptionChanged,
  Refunded: tipRefunded,
};
