import type { PersonalDataPart } from '../define-module';

/** Achievements: exported, deleted on erasure. */
export const achievementsPersonalData: PersonalDataPart = {
  columns: ['achievements.user_id'],
  async export(db, userId) {
    return { achievements: await db('achievements').where({ user_id: userId }).select('kind', 'code', 'fundraiser_id', 'earned_at') };
  },
  async erase(trx, a) {
    await trx('achievements').where({ user_id: a.userId }).delete();
  },
};
