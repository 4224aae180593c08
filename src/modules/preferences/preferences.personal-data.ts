import type { PersonalDataPart } from '../define-module';

/** Mail preferences: exported, deleted on erasure. */
export const preferencesPersonalData: PersonalDataPart = {
  columns: ['notification_preferences.user_id', 'notification_preferences.email'],
  async export(db, userId) {
    return { preferences: (await db('notification_preferences').where({ user_id: userId }).first('email', 'updated_at')) ?? null };
  },
  async erase(trx, a) {
    await trx('notification_preferences').where({ user_id: a.userId }).delete();
  },
};
