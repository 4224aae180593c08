import type { Knex } from 'knex';
import type { AppContext } from '../../../context';
import type { PaymentRef } from '../../../integrations/payments';
import { findById as findFundraiser } from '../../fundraisers';
import { accountHere, rebuildable, rebuildGift } from '../donations.rebuild';

/**
 * A monthly gift started after the point a database was restored to: its Checkout Session,
 * subscription and invoices carry its first gift's description with the monthly gift's id
 * (donations.service.ts). Its checkout or an invoice rebuilds the monthly gift (incomplete) and
 * its first gift (pending) in the transaction that then links or settles them as usual; both
 * ids are primary keys, so a duplicate or reordered event finds the rows instead.
 * Answers whether the rows are there now.
 */
export async function rebuildMonthly(ctx: AppContext, trx: Knex.Transaction, ref: PaymentRef | null, ids: { cs: string | null }): Promise<boolean> {
  const g = rebuildable(ctx, ref, true);
  if (!g?.recurring_gift_id || !(await findFundraiser(trx, g.fundraiser_id))) return false;
  await trx('recurring_gifts')
    .insert({
      id: g.recurring_gift_id,
      fundraiser_id: g.fundraiser_id,
      donor_user_id: await accountHere(trx, g.donor_user_id),
      donor_email: g.donor_email,
      donor_name: g.donor_name,
      anonymous: g.anonymous,
      amount_cents: g.amount_cents,
      tip_cents: g.tip_cents,
      currency: g.currency,
      interval: 'month',
      status: 'incomplete',
      locale: g.locale,
      processor_checkout_session_id: ids.cs ?? g.checkout_session_id,
      ...(g.created ? { created_at: g.created } : {}),
    })
    .onConflict()
    .ignore();
  const first = await rebuildGift(ctx, trx, g, { pi: null, cs: ids.cs });
  if (!first) return false;
  await trx('recurring_gifts').where({ id: g.recurring_gift_id }).whereNull('first_donation_id').update({ first_donation_id: first.id });
  return true;
}

/** A gift rebuilt from an invoice learns its Checkout Session from the checkout's event (never overwritten). */
export async function noteSession(trx: Knex.Transaction, g: { id: string; first_donation_id: string | null }, cs: string): Promise<void> {
  await trx('recurring_gifts').where({ id: g.id }).whereNull('processor_checkout_session_id').update({ processor_checkout_session_id: cs });
  if (g.first_donation_id) await trx('donations').where({ id: g.first_donation_id }).whereNull('processor_checkout_session_id').update({ processor_checkout_session_id: cs });
}
