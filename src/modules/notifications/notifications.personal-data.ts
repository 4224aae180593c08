import type { PersonalDataPart } from '../define-module';

/** The account's notifications: exported, deleted on erasure. */
export const notificationsPersonalData: PersonalDataPart = {
  columns: ['notifications.user_id'],
  async export(db, userId) {
    return {
      notifications: await db('notifications').where({ user_id: userId }).select('id', 'type', 'title', 'message', 'action_url', 'metadata', 'is_read', 'created_at'),
    };
  },
  async erase(trx, a) {
    await trx('notifications').where({ user_id: a.userId }).delete();
  },
};
