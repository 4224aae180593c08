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
    // Other people's notices the account caused (a comment, a follow) quote it; they go with it.
    await trx('notifications').whereRaw('strpos(metadata::text, ?) > 0', [a.userId]).delete();
    // Other people's notices that name it or quote it keep their sense: the privacy module's sweep replaces those copies.
    if (a.slug) await trx('notifications').whereRaw('strpos(action_url, ?) > 0', [a.slug]).update({ action_url: null });
  },
};
