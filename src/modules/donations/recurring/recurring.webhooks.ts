import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AppContext } from '../../../context';
import { emit } from '../../../events';
import type { CheckoutCompleted, InvoicePaid, InvoicePaymentFailed, PaymentRef, SubscriptionChanged } from '../../../integrations/payments';
import { lockForCounters } from '../../fundraisers';
import { withPaymentFee, type WebhookHandler } from '../../webhooks';
import * as repo from '../donations.repo';
import type { DonationRow } from '../donations.repo';
import { settle, type Outcome } from '../donations.settle';
import * as rrepo from './recurring.repo';
import type { RecurringGiftRow } from './recurring.repo';
import { giftCanceled, giftStarted, queueSync } from './recurring.changes';
import { noteSession, rebuildMonthly } from './recurring.rebuild';

/**
 * A monthly gift's processor events. Its subscription's metadata names its first gift
 * (`{ kind: 'donation', donation_id, recurring_gift_id }`), so events reach the donations module
 * by ref; without metadata they are matched by subscription id. Each invoice settles one gift,
 * once (donations.processor_invoice_id is unique): the first invoice settles the pending gift
 * the checkout opened, each later one a new gift, both through the one settle().
 */

type Q = Knex | Knex.Transaction;

async function locateGift(db: Q, ref: PaymentRef | null, subscriptionId: string | null): Promise<RecurringGiftRow | undefined> {
  if (ref?.kind === 'donation' && ref.id) {
    const d = await repo.findById(db, ref.id);
    if (d?.recurring_gift_id) return rrepo.find(db, d.recurring_gift_id);
  }
  return subscriptionId ? rrepo.findBySubscription(db, subscriptionId) : undefined;
}

/** Finds the gift, then locks campaign and gift in the settlement's order (campaign first, see donations.webhooks.ts). */
async function lockedGift(trx: Knex.Transaction, ref: PaymentRef | null, subscriptionId: string | null): Promise<RecurringGiftRow | undefined> {
  const found = await locateGift(trx, ref, subscriptionId);
  if (!found) return undefined;
  await lockForCounters(trx, found.fundraiser_id);
  return rrepo.find(trx, found.id, true);
}

/** The gift locked, rebuilt first when the processor describes one this database lacks (started after a restore point). */
async function lockedOrRebuilt(ctx: AppContext, trx: Knex.Transaction, ref: PaymentRef | null, subscriptionId: string | null, cs: string | null) {
  const g = await lockedGift(trx, ref, subscriptionId);
  if (g) return g;
  return (await rebuildMonthly(ctx, trx, ref, { cs })) ? lockedGift(trx, ref, subscriptionId) : undefined;
}

/** Records the processor ids the gift learns from its events (never overwrites one). */
async function link(trx: Knex.Transaction, g: RecurringGiftRow, ids: { subscription?: string | null; customer?: string | null }): Promise<RecurringGiftRow> {
  const patch: Record<string, unknown> = {};
  if (!g.processor_subscription_id && ids.subscription) patch.processor_subscription_id = ids.subscription;
  if (!g.processor_customer_id && ids.customer) patch.processor_customer_id = ids.customer;
  if (!Object.keys(patch).length) return g;
  const next = await rrepo.update(trx, g.id, patch);
  // A change made before the subscription was known (a cancel) can reach the processor now.
  if (patch.processor_subscription_id && next.sync_version > next.synced_version) await queueSync(trx, next.id, true);
  return next;
}

/** CheckoutCompleted in subscription mode: links the subscription; the first invoice settles the gift. */
export const monthlyCheckoutCompleted: WebhookHandler<CheckoutCompleted> = async (ctx, e, trx): Promise<Outcome> => {
  const g = await lockedOrRebuilt(ctx, trx, e.ref, e.subscription_id, e.session_id);
  if (!g) return 'ignored';
  if (g.processor_subscription_id && e.subscription_id && g.processor_subscription_id !== e.subscription_id) return 'ignored';
  await link(trx, g, { subscription: e.subscription_id, customer: e.customer_id });
  await noteSession(trx, g, e.session_id);
  return 'applied';
};

/** The campaign's part and the tip of a payment of `total`: the gift's split, else the tip first kept whole. */
function split(g: RecurringGiftRow, total: number): { amount_cents: number; tip_cents: number } | null {
  if (!Number.isSafeInteger(total) || total < 1) return null;
  if (total === g.amount_cents + g.tip_cents) return { amount_cents: g.amount_cents, tip_cents: g.tip_cents };
  const tip = g.tip_cents < total ? g.tip_cents : 0;
  return { amount_cents: total - tip, tip_cents: tip };
}

/** The gift an invoice pays: the checkout's pending first gift, else a new one (null: not settleable). */
async function giftForInvoice(ctx: AppContext, trx: Knex.Transaction, g: RecurringGiftRow, inv: InvoicePaid): Promise<DonationRow | null> {
  const unreadable = () => {
    ctx.log.warn({ recurringGiftId: g.id, eventId: inv.id, amount: inv.amount_cents, currency: inv.currency }, 'monthly gift invoice amount or currency does not fit the gift; nothing settled');
    return null;
  };
  if (inv.currency.toLowerCase() !== g.currency.toLowerCase()) return unreadable();
  const first = g.first_donation_id ? await repo.findById(trx, g.first_donation_id, true) : undefined;
  if (first && !first.processor_invoice_id && (first.status === 'pending' || first.status === 'failed')) {
    if (inv.amount_cents !== first.amount_cents + first.tip_cents) return unreadable();
    await repo.setProcessorInvoice(trx, first.id, inv.invoice_id);
    return { ...first, processor_invoice_id: inv.invoice_id };
  }
  const parts = split(g, inv.amount_cents);
  if (!parts) return unreadable();
  return repo.insertDonation(trx, {
    fundraiser_id: g.fundraiser_id,
    donor_user_id: g.donor_user_id,
    donor_email: g.donor_email,
    donor_name: g.donor_name,
    anonymous: g.anonymous,
    ...parts,
    currency: g.currency,
    status: 'pending',
    method: 'subscription',
    receipt_id: randomBytes(24).toString('base64url'),
    locale: g.locale,
    recurring_gift_id: g.id,
    processor_invoice_id: inv.invoice_id,
  });
}

const later = (a: Date | null, b: Date | null) => (!a ? b : !b ? a : a > b ? a : b);

/** invoice.paid: the first payment or a renewal becomes one settled gift; money that arrived is recorded whatever the gift's status. */
export const monthlyInvoicePaid = withPaymentFee<InvoicePaid>(
  (inv) => ({ paymentIntentId: inv.payment_intent_id, amountCents: inv.amount_cents }),
  async (ctx: AppContext, inv: InvoicePaid, trx: Knex.Transaction, fee: number): Promise<Outcome> => {
    const g0 = await lockedOrRebuilt(ctx, trx, inv.ref, inv.subscription_id, null);
    if (!g0) return 'ignored';
    if (inv.subscription_id && g0.processor_subscription_id && g0.processor_subscription_id !== inv.subscription_id) return 'ignored';
    const g = await link(trx, g0, { subscription: inv.subscription_id, customer: inv.customer_id });
    if (await repo.findByInvoice(trx, inv.invoice_id)) return 'ignored';
    const d = await giftForInvoice(ctx, trx, g, inv);
    if (!d) return 'ignored';
    const facts = { amount: inv.amount_cents, currency: inv.currency, paymentIntentId: inv.payment_intent_id, chargeId: null, fee };
    if ((await settle(ctx, trx, d, facts, inv.id)) !== 'applied') throw new Error(`monthly gift ${g.id}: invoice ${inv.invoice_id} did not settle gift ${d.id}`);
    const patch: Record<string, unknown> = { next_payment_at: later(g.next_payment_at, inv.period_end) };
    if (g.status === 'past_due') patch.status = 'active';
    if (g.status === 'incomplete') Object.assign(patch, { status: 'active', started_at: trx.fn.now() });
    const next = await rrepo.update(trx, g.id, patch);
    if (g.status === 'incomplete') await giftStarted(trx, next, inv.invoice_id);
    return 'applied';
  },
);

/** invoice.payment_failed on a renewal: past_due, and one mail per invoice with a link to pay it with another card. */
export const monthlyInvoiceFailed: WebhookHandler<InvoicePaymentFailed> = async (_ctx, inv, trx): Promise<Outcome> => {
  const g = await lockedGift(trx, inv.ref, inv.subscription_id);
  if (!g || g.status === 'incomplete' || g.status === 'canceled') return 'ignored';
  // A retry that succeeded first: the invoice is paid, the decline is old news.
  if (await repo.findByInvoice(trx, inv.invoice_id)) return 'ignored';
  if (g.last_failed_invoice_id === inv.invoice_id && g.status === 'past_due') return 'ignored';
  const firstDecline = g.last_failed_invoice_id !== inv.invoice_id;
  await rrepo.update(trx, g.id, { status: g.status === 'paused' ? 'paused' : 'past_due', last_failed_invoice_id: inv.invoice_id });
  if (firstDecline) {
    await emit(trx, 'recurring_gift.payment_failed', { recurring_gift_id: g.id, invoice_id: inv.invoice_id, update_url: inv.hosted_invoice_url });
  }
  return 'applied';
};

const ENDED = new Set(['canceled', 'unpaid', 'incomplete_expired']);

/**
 * customer.subscription.updated / .deleted: the processor's view of the gift, applied in event
 * order (an older event than the last applied changes nothing; canceled is final). Paused is
 * the gift's own state: the processor keeps calling a paused subscription active.
 */
export const monthlySubscriptionChanged: WebhookHandler<SubscriptionChanged> = async (_ctx, e, trx): Promise<Outcome> => {
  const g = await lockedGift(trx, e.ref, e.subscription_id);
  if (!g) return 'ignored';
  if (g.processor_subscription_id && g.processor_subscription_id !== e.subscription_id) return 'ignored';
  if (g.status === 'canceled' || (g.subscription_event_at && e.created < new Date(g.subscription_event_at))) return 'ignored';
  const linked = await link(trx, g, { subscription: e.subscription_id, customer: e.customer_id });
  const patch: Record<string, unknown> = { subscription_event_at: e.created };
  if (e.current_period_end) patch.next_payment_at = later(g.next_payment_at, e.current_period_end);
  if (e.deleted || ENDED.has(e.status ?? '')) {
    await rrepo.update(trx, g.id, patch);
    await giftCanceled(trx, linked, { by: g.status === 'incomplete' ? 'checkout' : 'processor', reason: null, at: e.canceled_at ?? e.ended_at ?? e.created });
    return 'applied';
  }
  if (e.status === 'past_due' && g.status === 'active') patch.status = 'past_due';
  if (e.status === 'active' && g.status === 'past_due') patch.status = 'active';
  await rrepo.update(trx, g.id, patch);
  return 'applied';
};
