import type { Knex } from 'knex';
import { lockForCounters } from '../../fundraisers';
import { giftCanceled } from './recurring.changes';
import * as rrepo from './recurring.repo';
import type { RecurringGiftRow } from './recurring.repo';

/**
 * Monthly gifts in privacy requests (docs/decisions/0009-erasure-pseudonymises-money.md): exported with the gifts; an erasure
 * cancels them first (no more charges to a person who asked to be forgotten; the processor
 * learns it through the sync job after commit), then drops the donor's name and address.
 */
const COLUMNS = ['id', 'fundraiser_id', 'donor_name', 'donor_email', 'anonymous', 'amount_cents', 'tip_cents', 'currency', 'interval', 'status',
  'next_payment_at', 'started_at', 'canceled_at', 'cancel_reason', 'created_at'];

export const recurringColumns = ['recurring_gifts.donor_user_id', 'recurring_gifts.donor_email'] as const;

export const exportForUser = (db: Knex, userId: string) => db('recurring_gifts').where({ donor_user_id: userId }).orderBy('created_at').select(COLUMNS);

export const exportForGuest = (db: Knex, email: string) =>
  db('recurring_gifts').whereNull('donor_user_id').whereRaw('lower(donor_email) = lower(?)', [email]).orderBy('created_at').select(COLUMNS);

async function cancelAll(trx: Knex.Transaction, gifts: Array<{ id: string; fundraiser_id: string }>): Promise<void> {
  // Campaign rows first, in one order, as every settlement takes them.
  for (const fid of [...new Set(gifts.map((g) => g.fundraiser_id))].sort()) await lockForCounters(trx, fid);
  for (const { id } of gifts) {
    const g: RecurringGiftRow | undefined = await rrepo.find(trx, id, true);
    if (g && g.status !== 'canceled') await giftCanceled(trx, g, { by: 'erasure', reason: null, syncNow: true });
  }
}

export async function eraseForUser(trx: Knex.Transaction, userId: string): Promise<void> {
  await cancelAll(trx, await trx('recurring_gifts').where({ donor_user_id: userId }).whereNot({ status: 'canceled' }).select('id', 'fundraiser_id'));
  await trx('recurring_gifts').where({ donor_user_id: userId }).update({ donor_email: null, donor_name: null, cancel_reason: null, anonymous: true, updated_at: trx.fn.now() });
}

/** A guest's monthly gifts move to the same pseudonym as their gifts (the distinct-donor count stays true). */
export async function eraseForGuest(trx: Knex.Transaction, email: string, pseudonym: string): Promise<number> {
  const q = () => trx('recurring_gifts').whereNull('donor_user_id').whereRaw('lower(donor_email) = lower(?)', [email]);
  await cancelAll(trx, await q().whereNot({ status: 'canceled' }).select('id', 'fundraiser_id'));
  return q().update({ donor_email: pseudonym, donor_name: null, cancel_reason: null, anonymous: true, updated_at: trx.fn.now() });
}
