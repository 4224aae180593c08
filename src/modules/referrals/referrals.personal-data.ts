import type { PersonalDataPart } from '../define-module';

/**
 * Referral clicks the account made are forgotten; attributions of gifts to a referrer are
 * money facts (amounts driven) that stay, keyed by the pseudonymised account.
 */
export const referralsPersonalData: PersonalDataPart = {
  columns: ['referral_clicks.clicker_user_id', 'referral_clicks.referrer_user_id', 'referral_attributions.referrer_user_id'],
  async export(db, userId) {
    return { referrals: await db('referral_attributions').where({ referrer_user_id: userId }).select('fundraiser_id', 'channel', 'amount_cents', 'paid_at') };
  },
  async erase(trx, a) {
    await trx('referral_clicks').where({ clicker_user_id: a.userId }).update({ clicker_user_id: null });
  },
};
