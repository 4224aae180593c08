import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { CheckoutCompleted, CheckoutFailed, DisputeClosed, DisputeOpened, PaymentEvent, PaymentFailed, PaymentSucceeded, ProcessorGift, Refunded } from '../../integrations/payments';
import { processorFee, type WebhookHandler, type WebhookHandlerMap } from '../webhooks';
import * as repo from './donations.repo';
import type { DonationRow } from './donations.repo';
import { withDisputeFees } from './donations.dispute-fees';
import { describedByEvent, rebuildable, rebuildGift } from './donations.rebuild';
import { settle, takeBack, type Outcome } from './donations.settle';
import { giftCanceled } from './recurring/recurring.changes';
import * as rrepo from './recurring/recurring.repo';
import { monthlyCheckoutCompleted, monthlyInvoiceFailed, monthlyInvoicePaid, monthlySubscriptionChanged } from './recurring/recurring.webhooks';

type Q = Knex | Knex.Transaction;

/** The events that may name a gift; each carries the processor ids a gift row may hold. */
type GiftEvent = PaymentSucceeded | PaymentFailed | CheckoutCompleted | CheckoutFailed | Refunded | DisputeOpened | DisputeClosed;

/** The processor ids an event carries that can name a gift. */
function idsOf(e: GiftEvent): { pi: string | null; cs: string | null; charge: string | null } {
  switch (e.kind) {
    case 'PaymentSucceeded':
      return { pi: e.payment_intent_id, cs: null, charge: e.charge_id };
    case 'PaymentFailed':
      return { pi: e.payment_intent_id, cs: null, charge: null };
    case 'CheckoutCompleted':
      return { pi: e.payment_intent_id, cs: e.session_id, charge: null };
    case 'CheckoutFailed':
      return { pi: null, cs: e.session_id, charge: null };
    default:
      return { pi: e.payment_intent_id, cs: null, charge: e.charge_id };
  }
}

const donationIdOf = (e: PaymentEvent) => (e.ref?.kind === 'donation' ? e.ref.id : null);

/** The gift an event names: its ref first, then the processor id columns. */
async function locate(db: Q, event: GiftEvent, forUpdate: boolean): Promise<DonationRow | undefined> {
  const id = donationIdOf(event);
  if (id) {
    const d = await repo.findById(db, id, forUpdate);
    if (d) return d;
  }
  return repo.findByProcessorIds(db, idsOf(event), forUpdate);
}

/** The same gift, only as much as the prefetch reads of it (by its ref, the common case, three columns). */
async function locateState(db: Q, event: GiftEvent): Promise<repo.GiftState | undefined> {
  const id = donationIdOf(event);
  const d = id ? await repo.findStateById(db, id) : undefined;
  return d ?? repo.findByProcessorIds(db, idsOf(event));
}

interface Prefetched {
  fee: number;
  /** The gift named by the PaymentIntent's metadata at the processor, when the event itself names none we know. */
  donationId: string | null;
  /** The processor's description of a gift this database has no row for (started after a restore point). */
  rebuild: ProcessorGift | null;
}

const unsettled = (d: repo.GiftState | undefined) => !!d && (d.status === 'pending' || d.status === 'failed');

/**
 * Processor reads before the transaction (network calls for Stripe): the gift behind a
 * PaymentIntent we have not linked yet (a dispute or refund of a Checkout gift arriving before
 * its success), the description of a gift we have no row for (the event's object carries it,
 * else the PaymentIntent's), and the fee, only when the event may settle a gift not yet paid.
 */
async function prefetchPayment(ctx: AppContext, event: GiftEvent): Promise<Prefetched> {
  const refs = idsOf(event);
  let d = await locateState(ctx.db, event);
  let donationId: string | null = null;
  let rebuild: ProcessorGift | null = null;
  if (!d) {
    const named = event.ref?.kind === 'donation' ? event.ref : null;
    const ref = describedByEvent(event) || !refs.pi ? named : ((await ctx.payments.paymentIntentRef(refs.pi)) ?? named);
    if (ref?.kind === 'donation' && ref.id) {
      donationId = ref.id;
      d = await repo.findById(ctx.db, donationId);
      if (!d) rebuild = rebuildable(ctx, ref);
    }
  }
  const pi = refs.pi ?? d?.processor_payment_intent_id ?? null;
  const known = event.kind === 'PaymentSucceeded' ? event.fee_cents : null;
  const fee = (unsettled(d) || rebuild) && pi ? (known ?? (await processorFee(ctx, pi))) : 0;
  return { fee, donationId, rebuild };
}

// Cleaned where it is recorded (settle, by webhooks/payment-fee.ts cleanFee).
const feeOf = (prefetched: unknown) => (prefetched as Prefetched | undefined)?.fee ?? 0;
const prefetchedGift = (prefetched: unknown) => (prefetched as Prefetched | undefined)?.donationId ?? null;
const toRebuild = (prefetched: unknown) => (prefetched as Prefetched | undefined)?.rebuild ?? null;

/**
 * A handler that runs on the locked gift; events that name no gift are ignored. The campaign row
 * is not locked: gifts of one campaign settle side by side, their counters in shard rows
 * (fundraisers/counters.ts).
 */
function onDonation<E extends GiftEvent>(run: (ctx: AppContext, trx: Knex.Transaction, d: DonationRow, event: E, fee: number) => Promise<Outcome>, settles = true): WebhookHandler<E> {
  const h: WebhookHandler<E> = async (ctx, event, trx, prefetched) => {
    // The gift the event names is read and locked in one statement (one round trip per settlement).
    const named = await locate(trx, event, true);
    if (named) return run(ctx, trx, named, event, feeOf(prefetched));
    const linked = prefetchedGift(prefetched);
    const rebuild = toRebuild(prefetched);
    const found = (linked ? await repo.findById(trx, linked) : undefined) ?? (rebuild ? await rebuildGift(ctx, trx, rebuild, idsOf(event)) : undefined);
    if (!found) return 'ignored';
    const d = await repo.findById(trx, found.id, true);
    if (!d) return 'ignored';
    return run(ctx, trx, d, event, feeOf(prefetched));
  };
  if (settles) h.prefetch = prefetchPayment;
  return h;
}

/** Checkout in payment mode: a paid session settles; an unpaid one waits for the async outcome. */
const checkoutPaid = onDonation<CheckoutCompleted>(async (ctx, trx, d, e, fee) => {
  if (e.mode && e.mode !== 'payment') return 'ignored';
  if (e.payment_intent_id) await repo.notePaymentIntent(trx, d.id, e.payment_intent_id);
  if (!e.paid || e.amount_cents === null) return 'ignored';
  return settle(ctx, trx, d, { amount: e.amount_cents, currency: e.currency, paymentIntentId: e.payment_intent_id, chargeId: null, fee }, e.id);
});

/** Checkout in subscription mode is a monthly gift's; payment mode a one-time gift's. */
const checkoutCompleted: WebhookHandler<CheckoutCompleted> = (ctx, e, trx, prefetched) =>
  e.mode === 'subscription' ? monthlyCheckoutCompleted(ctx, e, trx, prefetched) : checkoutPaid(ctx, e, trx, prefetched);
// The first invoice of a subscription settles a monthly gift (its fee read there); a payment-mode session settles here.
checkoutCompleted.prefetch = checkoutPaid.prefetch;

/** An expired checkout fails its gift; a monthly gift that never started ends with it. */
const checkoutFailed = onDonation<CheckoutFailed>(async (_ctx, trx, d) => {
  const failed = await repo.markFailed(trx, d.id);
  const g = d.recurring_gift_id ? await rrepo.find(trx, d.recurring_gift_id, true) : undefined;
  if (g && g.status === 'incomplete') await giftCanceled(trx, g, { by: 'checkout', reason: null });
  return failed ? 'applied' : 'ignored';
}, false);

/**
 * A refund or dispute proves the charge succeeded: a gift not yet paid (pending, or failed
 * before a later card succeeded) is settled first. From a charge, its amount is checked as
 * usual; a dispute names only the disputed amount, so the gift's own gross is taken when the
 * currency matches and the dispute fits in it.
 */
async function settleFirst(ctx: AppContext, trx: Knex.Transaction, d: DonationRow, e: Refunded | DisputeOpened | DisputeClosed, fee: number): Promise<DonationRow | null> {
  if (!unsettled(d)) return d;
  const gross = d.amount_cents + d.tip_cents;
  const amount = e.kind === 'Refunded' ? e.amount_cents : e.amount_cents <= gross ? gross : e.amount_cents;
  const facts = { amount, currency: e.currency, paymentIntentId: e.payment_intent_id, chargeId: e.charge_id, fee };
  if ((await settle(ctx, trx, d, facts, e.id)) !== 'applied') return null;
  return (await repo.findById(trx, d.id, true)) ?? null;
}

const refunded = onDonation<Refunded>(async (ctx, trx, d0, e, fee) => {
  const d = await settleFirst(ctx, trx, d0, e, fee);
  if (!d) return 'ignored';
  const total = Math.min(e.amount_refunded_cents, d.amount_cents + d.tip_cents);
  if (total <= d.refunded_cents) return d === d0 ? 'ignored' : 'applied';
  return takeBack(ctx, trx, d, { refunded: total, disputed: d.disputed_cents, disputeStatus: d.dispute_status, chargeId: e.charge_id }, 'refund', e.id);
});

/** Inquiries (warning_*) withdraw nothing; a real dispute takes its amount back until it is won (its fee: donations.dispute-fees.ts). */
const disputeOpened = onDonation<DisputeOpened>(withDisputeFees(async (ctx, trx, d0, e, fee) => {
  const d = await settleFirst(ctx, trx, d0, e, fee);
  if (!d) return 'ignored';
  if (e.status.startsWith('warning_') || d.dispute_status) return d === d0 ? 'ignored' : 'applied';
  return takeBack(ctx, trx, d, { refunded: d.refunded_cents, disputed: e.amount_cents, disputeStatus: 'open', chargeId: e.charge_id }, 'dispute', e.id);
}));

const disputeClosed = onDonation<DisputeClosed>(withDisputeFees(async (ctx, trx, d0, e, fee) => {
  const d = await settleFirst(ctx, trx, d0, e, fee);
  if (!d) return 'ignored';
  const charge = e.charge_id;
  if (e.status === 'won' || e.status === 'warning_closed') {
    if (d.dispute_status === 'open') {
      return takeBack(ctx, trx, d, { refunded: d.refunded_cents, disputed: 0, disputeStatus: 'won', chargeId: charge }, 'dispute_reversal', e.id);
    }
    if (d.dispute_status === null && e.status === 'won') await repo.setDisputeStatus(trx, d.id, 'won');
    return d.dispute_status === null && e.status === 'won' ? 'applied' : 'ignored';
  }
  if (e.status === 'lost') {
    if (d.dispute_status === 'open') {
      await repo.setDisputeStatus(trx, d.id, 'lost');
      return 'applied';
    }
    // The closing event came first: the money left with the dispute, which is now final.
    if (d.dispute_status === null) {
      return takeBack(ctx, trx, d, { refunded: d.refunded_cents, disputed: e.amount_cents, disputeStatus: 'lost', chargeId: charge }, 'dispute', e.id);
    }
  }
  return d === d0 ? 'ignored' : 'applied';
}));

/**
 * The donations module's payment events (merged by `ref.kind` in src/modules/index.ts). Each
 * settles a gift at most once (the unpaid -> paid update decides), in any order; `failed` is
 * not final, so a success after a declined card still settles the gift.
 */
export const donationWebhooks: WebhookHandlerMap = {
  PaymentSucceeded: onDonation<PaymentSucceeded>((ctx, trx, d, e, fee) =>
    settle(ctx, trx, d, { amount: e.amount_cents, currency: e.currency, paymentIntentId: e.payment_intent_id, chargeId: e.charge_id, fee }, e.id),
  ),
  // In Checkout the payer may retry another card in the same session: only its expiry fails the gift.
  PaymentFailed: onDonation<PaymentFailed>(async (_ctx, trx, d) => (d.method === 'checkout' ? 'ignored' : (await repo.markFailed(trx, d.id)) ? 'applied' : 'ignored'), false),
  CheckoutCompleted: checkoutCompleted,
  CheckoutFailed: checkoutFailed,
  InvoicePaid: monthlyInvoicePaid,
  InvoicePaymentFailed: monthlyInvoiceFailed,
  SubscriptionChanged: monthlySubscriptionChanged,
  Refunded: refunded,
  DisputeOpened: disputeOpened,
  DisputeClosed: disputeClosed,
};
