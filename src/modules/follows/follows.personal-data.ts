import type { PersonalDataPart } from '../define-module';

/** Follows made by the account and of the account: exported (its own), deleted on erasure (both ways). */
export const followsPersonalData: PersonalDataPart = {
  columns: ['follows.follower_id'],
  async export(db, userId) {
    return { follows: await db('follows').where({ follower_id: userId }).select('following_type', 'following_id', 'created_at', 'deleted_at') };
  },
  async erase(trx, a) {
    await trx('follows').where({ follower_id: a.userId }).delete();
    await trx('follows').where({ following_type: 'user', following_id: a.userId }).delete();
  },
};
