import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { processorOrigin, type PaymentEvent, type PaymentRef, type ProcessorGift } from '../../integrations/payments';
import { findById as findFundraiser } from '../fundraisers';
import { accountExists } from '../idp';
import * as repo from './donations.repo';
import type { DonationRow } from './donations.repo';

/**
 * A gift started after the point a database was restored to has no row, but the processor's
 * objects describe it (the metadata written by donations.service.ts). Its money events rebuild the
 * row, pending, in the transaction that then settles, refunds or disputes it as usual: the gift
 * id is the primary key, so a duplicate or reordered event finds the row instead of making another.
 */

/**
 * Whether the event's own object describes its gift as well as the PaymentIntent would: a
 * Checkout Session, or a one-time PaymentIntent (a charge's or a Checkout PaymentIntent's metadata
 * lacks the address, the session or the time the gift was started: the port is asked instead).
 */
export function describedByEvent(e: PaymentEvent): boolean {
  const gift = e.ref?.kind === 'donation' ? e.ref.gift : undefined;
  if (!gift) return false;
  return e.kind === 'CheckoutCompleted' || e.kind === 'CheckoutFailed' || (e.kind === 'PaymentSucceeded' && gift.method === 'payment_intent');
}

/**
 * The description to rebuild from, read before the transaction: only a complete one written by
 * this deployment (a test-mode processor account may be shared by several environments).
 */
export function rebuildable(ctx: AppContext, ref: PaymentRef | null | undefined, monthly = false): ProcessorGift | null {
  const gift = ref?.kind === 'donation' ? ref.gift : undefined;
  // A monthly gift's first payment is rebuilt with its monthly gift (recurring/recurring.rebuild.ts).
  if (!gift || !!gift.recurring_gift_id !== monthly) return null;
  if (gift.origin !== processorOrigin(ctx.config.PUBLIC_URL)) {
    ctx.log.info({ donationId: gift.donation_id, origin: gift.origin }, 'processor gift of another deployment; not rebuilt');
    return null;
  }
  return gift;
}

/** The donor's account, if it is here: one made after the restore point is not, and the gift then counts by its address. */
export async function accountHere(trx: Knex.Transaction, userId: string | null): Promise<string | null> {
  return (await accountExists(trx, userId)) ? userId : null;
}

/**
 * The rebuilt row, or the one a concurrent event made first (its insert waits for that one's
 * transaction, then does nothing); undefined when the campaign does not exist here.
 */
export async function rebuildGift(ctx: AppContext, trx: Knex.Transaction, g: ProcessorGift, ids: { pi: string | null; cs: string | null }): Promise<DonationRow | undefined> {
  if (!(await findFundraiser(trx, g.fundraiser_id))) return undefined;
  const inserted = await trx('donations')
    .insert({
      id: g.donation_id,
      fundraiser_id: g.fundraiser_id,
      donor_user_id: await accountHere(trx, g.donor_user_id),
      donor_email: g.donor_email,
      donor_name: g.donor_name,
      anonymous: g.anonymous,
      message: null,
      referral_code: g.referral_code,
      amount_cents: g.amount_cents,
      tip_cents: g.tip_cents,
      currency: g.currency,
      status: 'pending',
      method: g.method,
      processor_payment_intent_id: ids.pi,
      processor_checkout_session_id: ids.cs ?? g.checkout_session_id,
      receipt_id: g.receipt_id,
      locale: g.locale,
      recurring_gift_id: g.recurring_gift_id,
      ...(g.created ? { created_at: g.created } : {}),
    })
    .onConflict()
    .ignore()
    .returning('id');
  if (inserted.length) ctx.log.info({ donationId: g.donation_id, fundraiserId: g.fundraiser_id }, 'gift rebuilt from the processor');
  return repo.findById(trx, g.donation_id);
}
