import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { ProcessorEvent } from '../../integrations/payments/port';
import type { WebhookHandler, WebhookHandlerMap } from '../webhooks';
import * as repo from './donations.repo';
import type { DonationRow } from './donations.repo';
import { settle, takeBack, type Outcome } from './donations.settle';

type Obj = Record<string, any>;
type Q = Knex | Knex.Transaction;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A processor reference that may arrive as an id or as the expanded object. */
const idOf = (v: unknown): string | null => (typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as Obj).id === 'string' ? (v as Obj).id : null);

/** The ids an event's object carries that can name a gift. */
function refsOf(event: ProcessorEvent): { donationId: string | null; pi: string | null; cs: string | null; charge: string | null } {
  const o = event.data.object as Obj;
  const meta = o.metadata ?? {};
  const donationId = meta.kind === 'donation' && typeof meta.donation_id === 'string' && UUID.test(meta.donation_id) ? meta.donation_id : null;
  const t = event.type;
  if (t.startsWith('payment_intent.')) return { donationId, pi: idOf(o.id), cs: null, charge: idOf(o.latest_charge) };
  if (t.startsWith('checkout.session.')) return { donationId, pi: idOf(o.payment_intent), cs: idOf(o.id), charge: null };
  if (t.startsWith('charge.dispute.')) return { donationId, pi: idOf(o.payment_intent), cs: null, charge: idOf(o.charge) };
  if (t.startsWith('charge.')) return { donationId, pi: idOf(o.payment_intent), cs: null, charge: idOf(o.id) };
  return { donationId, pi: null, cs: null, charge: null };
}

/** The gift an event names: metadata first, then the processor id columns. */
async function locate(db: Q, event: ProcessorEvent, forUpdate: boolean): Promise<DonationRow | undefined> {
  const r = refsOf(event);
  if (r.donationId) {
    const d = await repo.findById(db, r.donationId, forUpdate);
    if (d) return d;
  }
  return repo.findByProcessorIds(db, r, forUpdate);
}

interface Prefetched {
  fee: number;
  /** The gift named by the PaymentIntent's metadata at the processor, when the event itself names none we know. */
  donationId: string | null;
}

/**
 * Processor reads before the transaction (network calls for Stripe): the gift behind a
 * PaymentIntent we have not linked yet (a dispute or refund of a Checkout gift arriving before
 * its success), and the fee, only when the event may settle a gift that is still pending.
 */
async function prefetchPayment(ctx: AppContext, event: ProcessorEvent): Promise<Prefetched> {
  const refs = refsOf(event);
  let d = await locate(ctx.db, event, false);
  let donationId: string | null = null;
  if (!d && refs.pi) {
    const meta = await ctx.payments.paymentIntentMetadata(refs.pi);
    if (meta?.kind === 'donation' && UUID.test(meta.donation_id ?? '')) {
      donationId = meta.donation_id;
      d = await repo.findById(ctx.db, donationId);
    }
  }
  const pi = refs.pi ?? d?.processor_payment_intent_id ?? null;
  const fee = d && d.status === 'pending' && pi ? await ctx.payments.feeForPaymentIntent(pi) : 0;
  return { fee, donationId };
}

const feeOf = (prefetched: unknown) => Number((prefetched as Prefetched | undefined)?.fee ?? 0);
const prefetchedGift = (prefetched: unknown) => (prefetched as Prefetched | undefined)?.donationId ?? null;

/**
 * A handler that runs on the locked gift; objects that name no gift are ignored. The campaign
 * row is locked first (a gift never changes campaign): every settlement of a campaign then
 * takes its locks in one order (campaign, gift, donor row), so concurrent events cannot deadlock.
 */
function onDonation(run: (ctx: AppContext, trx: Knex.Transaction, d: DonationRow, o: Obj, event: ProcessorEvent, fee: number) => Promise<Outcome>, settles = true): WebhookHandler {
  const h: WebhookHandler = async (ctx, event, trx, prefetched) => {
    const linked = prefetchedGift(prefetched);
    const found = (await locate(trx, event, false)) ?? (linked ? await repo.findById(trx, linked) : undefined);
    if (!found) return 'ignored';
    await repo.lockCampaign(trx, found.fundraiser_id);
    const d = await repo.findById(trx, found.id, true);
    if (!d) return 'ignored';
    return run(ctx, trx, d, event.data.object as Obj, event, feeOf(prefetched));
  };
  if (settles) h.prefetch = prefetchPayment;
  return h;
}

const failPending = onDonation(async (_ctx, trx, d) => ((await repo.markFailed(trx, d.id)) ? 'applied' : 'ignored'), false);

/** Checkout in payment mode: 'paid' settles; 'unpaid' waits for the async outcome. */
const checkoutPaid = onDonation(async (ctx, trx, d, o, event, fee) => {
  if (o.mode && o.mode !== 'payment') return 'ignored';
  const pi = idOf(o.payment_intent);
  if (pi) await repo.notePaymentIntent(trx, d.id, pi);
  if (o.payment_status !== 'paid') return 'ignored';
  return settle(ctx, trx, d, { amount: Number(o.amount_total), currency: String(o.currency ?? ''), paymentIntentId: pi, chargeId: null, fee }, event.id);
});

/**
 * A refund or dispute proves the charge succeeded: a gift still pending is settled first. From
 * a charge, its amount is checked as usual; a dispute names only the disputed amount, so the
 * gift's own gross is taken when the currency matches and the dispute fits in it.
 */
async function settleFirst(ctx: AppContext, trx: Knex.Transaction, d: DonationRow, o: Obj, event: ProcessorEvent, fee: number): Promise<DonationRow | null> {
  if (d.status === 'paid' || d.status === 'refunded') return d;
  if (d.status !== 'pending') {
    ctx.log.warn({ donationId: d.id, eventId: event.id, status: d.status }, 'refund or dispute for a gift that never settled; ignored');
    return null;
  }
  const isDispute = event.type.startsWith('charge.dispute.');
  const gross = d.amount_cents + d.tip_cents;
  const amount = isDispute ? (Number(o.amount) <= gross ? gross : Number(o.amount)) : Number(o.amount);
  const facts = { amount, currency: String(o.currency ?? ''), paymentIntentId: idOf(o.payment_intent), chargeId: isDispute ? idOf(o.charge) : idOf(o.id), fee };
  if ((await settle(ctx, trx, d, facts, event.id)) !== 'applied') return null;
  return (await repo.findById(trx, d.id, true)) ?? null;
}

const refunded = onDonation(async (ctx, trx, d0, o, event, fee) => {
  const d = await settleFirst(ctx, trx, d0, o, event, fee);
  if (!d) return 'ignored';
  const total = Math.min(Number(o.amount_refunded) || 0, d.amount_cents + d.tip_cents);
  if (total <= d.refunded_cents) return d === d0 ? 'ignored' : 'applied';
  return takeBack(ctx, trx, d, { refunded: total, disputed: d.disputed_cents, disputeStatus: d.dispute_status, chargeId: idOf(o.id) }, 'refund', event.id);
});

/** Inquiries (warning_*) withdraw nothing; a real dispute takes its amount back until it is won. */
const disputeOpened = onDonation(async (ctx, trx, d0, o, event, fee) => {
  const d = await settleFirst(ctx, trx, d0, o, event, fee);
  if (!d) return 'ignored';
  if (String(o.status ?? '').startsWith('warning_') || d.dispute_status) return d === d0 ? 'ignored' : 'applied';
  const amount = Math.max(0, Number(o.amount) || 0);
  return takeBack(ctx, trx, d, { refunded: d.refunded_cents, disputed: amount, disputeStatus: 'open', chargeId: idOf(o.charge) }, 'dispute', event.id);
});

const disputeClosed = onDonation(async (ctx, trx, d0, o, event, fee) => {
  const d = await settleFirst(ctx, trx, d0, o, event, fee);
  if (!d) return 'ignored';
  const status = String(o.status ?? '');
  const charge = idOf(o.charge);
  if (status === 'won' || status === 'warning_closed') {
    if (d.dispute_status === 'open') {
      return takeBack(ctx, trx, d, { refunded: d.refunded_cents, disputed: 0, disputeStatus: 'won', chargeId: charge }, 'dispute_reversal', event.id);
    }
    if (d.dispute_status === null && status === 'won') await repo.setDisputeStatus(trx, d.id, 'won');
    return d.dispute_status === null && status === 'won' ? 'applied' : 'ignored';
  }
  if (status === 'lost') {
    if (d.dispute_status === 'open') {
      await repo.setDisputeStatus(trx, d.id, 'lost');
      return 'applied';
    }
    // The closing event came first: the money left with the dispute, which is now final.
    if (d.dispute_status === null) {
      const amount = Math.max(0, Number(o.amount) || 0);
      return takeBack(ctx, trx, d, { refunded: d.refunded_cents, disputed: amount, disputeStatus: 'lost', chargeId: charge }, 'dispute', event.id);
    }
  }
  return d === d0 ? 'ignored' : 'applied';
});

/**
 * The donations module's processor events (merged by kind in webhooks/handlers.ts). Each
 * settles a gift at most once (the pending -> paid update decides), in any order.
 */
export const donationWebhooks: WebhookHandlerMap = {
  'payment_intent.succeeded': onDonation((ctx, trx, d, o, event, fee) =>
    settle(ctx, trx, d, {
      amount: Number(o.amount_received ?? o.amount),
      currency: String(o.currency ?? ''),
      paymentIntentId: idOf(o.id),
      chargeId: idOf(o.latest_charge),
      fee,
    }, event.id),
  ),
  // In Checkout the payer may retry another card in the same session: only its expiry fails the gift.
  'payment_intent.payment_failed': onDonation(async (ctx, trx, d) => (d.method === 'checkout' ? 'ignored' : (await repo.markFailed(trx, d.id)) ? 'applied' : 'ignored'), false),
  'checkout.session.completed': checkoutPaid,
  'checkout.session.async_payment_succeeded': checkoutPaid,
  'checkout.session.async_payment_failed': failPending,
  'checkout.session.expired': failPending,
  'charge.refunded': refunded,
  'charge.dispute.created': disputeOpened,
  'charge.dispute.closed': disputeClosed,
};
