import type { PersonalDataPart } from '../define-module';

/**
 * Tips to the platform are financial records and stay; on erasure the address goes and the
 * tip is anonymous. HOOK for monthly gifts (another issue): their module declares its own part
 * (export the schedule; on erasure cancel it with the processor after commit, pseudonymise the rows).
 */
export const tipsPersonalData: PersonalDataPart = {
  columns: ['tips.user_id', 'tips.email'],
  authored: [{ table: 'tips', by: 'user_id', guestEmail: 'email', identifiers: ['email'] }],
  async export(db, userId) {
    return { tips: await db('tips').where({ user_id: userId }).select('id', 'email', 'anonymous', 'amount_cents', 'currency', 'cadence', 'status', 'paid_at', 'created_at') };
  },
  async erase(trx, a) {
    await trx('tips').where({ user_id: a.userId }).update({ email: null, anonymous: true, updated_at: trx.fn.now() });
  },
  async exportGuest(db, email) {
    return { tips: await db('tips').whereNull('user_id').whereRaw('lower(email) = lower(?)', [email]).select('id', 'amount_cents', 'currency', 'cadence', 'status', 'paid_at', 'created_at') };
  },
  async eraseGuest(trx, email) {
    return trx('tips').whereNull('user_id').whereRaw('lower(email) = lower(?)', [email]).update({ email: null, anonymous: true, updated_at: trx.fn.now() });
  },
};
