import type { PersonalDataPart } from '../define-module';

/** Campaign updates the account wrote and its likes: exported; on erasure the text goes (soft-deleted), likes deleted. */
export const updatesPersonalData: PersonalDataPart = {
  columns: ['project_updates.author_user_id', 'update_likes.user_id'],
  authored: [{ table: 'project_updates', by: 'author_user_id', texts: ['title', 'body'] }],
  async export(db, userId) {
    return {
      updates: await db('project_updates').where({ author_user_id: userId }).select('id', 'fundraiser_id', 'title', 'body', 'language', 'created_at', 'deleted_at'),
      update_likes: await db('update_likes').where({ user_id: userId }).select('update_id', 'created_at'),
    };
  },
  async erase(trx, a) {
    const liked = await trx('update_likes').where({ user_id: a.userId }).delete().returning('update_id');
    const ids = liked.map((r: { update_id: string }) => r.update_id);
    if (ids.length) {
      await trx.raw(`update project_updates u set like_count = (select count(*) from update_likes l where l.update_id = u.id) where u.id = any(?::uuid[])`, [ids]);
    }
    await trx.raw(`delete from update_translations where update_id in (select id from project_updates where author_user_id = ?)`, [a.userId]);
    await trx('project_updates').where({ author_user_id: a.userId }).update({ title: '', body: '', deleted_at: trx.raw('coalesce(deleted_at, now())') });
  },
};
