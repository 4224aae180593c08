import type { PersonalDataPart } from '../define-module';
import { eraseForGuest, eraseForUser, exportForGuest, exportForUser, recurringColumns } from './recurring/recurring.personal-data';

/**
 * Gifts are financial records and stay (amount, currency, dates, campaign, ledger entries). On
 * erasure the donor's address, name and note go and the gift becomes anonymous everywhere. A
 * guest's gifts move from their address to a random pseudonym, and the distinct-donor counters
 * (fundraiser_donors, keyed by the lower-cased address) move with them, so the counts stay true.
 */
const GIFT_COLUMNS = ['id', 'fundraiser_id', 'recurring_gift_id', 'donor_name', 'donor_email', 'anonymous', 'message', 'amount_cents', 'tip_cents', 'currency', 'status',
  'method', 'receipt_id', 'refunded_cents', 'paid_at', 'refunded_at', 'created_at'];

export const donationsPersonalData: PersonalDataPart = {
  columns: ['donations.donor_user_id', 'donations.donor_email', ...recurringColumns],
  authored: [
    { table: 'donations', by: 'donor_user_id', guestEmail: 'donor_email', identifiers: ['donor_email', 'donor_name'], texts: ['message'] },
    { table: 'recurring_gifts', by: 'donor_user_id', guestEmail: 'donor_email', identifiers: ['donor_email', 'donor_name'], texts: ['cancel_reason'] },
  ],
  async export(db, userId) {
    return {
      gifts: await db('donations').where({ donor_user_id: userId }).orderBy('created_at').select(GIFT_COLUMNS),
      monthly_gifts: await exportForUser(db, userId),
    };
  },
  async erase(trx, a) {
    // Monthly gifts stop first: nothing more is charged to an erased account.
    await eraseForUser(trx, a.userId);
    await trx('donations').where({ donor_user_id: a.userId }).update({ donor_email: null, donor_name: null, message: null, anonymous: true, updated_at: trx.fn.now() });
  },
  async exportGuest(db, email) {
    return {
      gifts: await db('donations').whereNull('donor_user_id').whereRaw('lower(donor_email) = lower(?)', [email]).orderBy('created_at').select(GIFT_COLUMNS),
      monthly_gifts: await exportForGuest(db, email),
    };
  },
  async eraseGuest(trx, email) {
    const pseudonym = `erased-${crypto.randomUUID()}`;
    await eraseForGuest(trx, email, pseudonym);
    const n = await trx('donations')
      .whereNull('donor_user_id')
      .whereRaw('lower(donor_email) = lower(?)', [email])
      .update({ donor_email: pseudonym, donor_name: null, message: null, anonymous: true, updated_at: trx.fn.now() });
    if (n > 0) await trx('fundraiser_donors').where({ donor_key: email.toLowerCase() }).update({ donor_key: pseudonym });
    return n;
  },
};
