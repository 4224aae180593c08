import type { PersonalDataPart } from '../define-module';

/** Blocks made by the account (exported); every block by or of it goes on erasure. */
export const blocksPersonalData: PersonalDataPart = {
  columns: ['user_blocks.blocker_id', 'user_blocks.blocked_id'],
  async export(db, userId) {
    return { blocks: await db('user_blocks').where({ blocker_id: userId }).select('blocked_id', 'created_at') };
  },
  async erase(trx, a) {
    await trx('user_blocks').where({ blocker_id: a.userId }).orWhere({ blocked_id: a.userId }).delete();
  },
};
