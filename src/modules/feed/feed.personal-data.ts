import type { PersonalDataPart } from '../define-module';

/** Which updates the account read: deleted on erasure (no value to the account in an export). */
export const feedPersonalData: PersonalDataPart = {
  columns: ['campaign_update_reads.user_id'],
  async erase(trx, a) {
    await trx('campaign_update_reads').where({ user_id: a.userId }).delete();
  },
};
