import type { PersonalDataPart } from '../define-module';

/**
 * Comments and replies: exported; on erasure their text and GIF go and they read as deleted
 * (rows stay so other people's replies keep their thread). Likes go, counters follow.
 */
export const commentsPersonalData: PersonalDataPart = {
  columns: ['comments.user_id', 'comment_likes.user_id'],
  authored: [{ table: 'comments', by: 'user_id', texts: ['body'] }],
  async export(db, userId) {
    return {
      comments: await db('comments').where({ user_id: userId }).select('id', 'fundraiser_id', 'parent_id', 'body', 'gif_id', 'donation_id', 'deleted_at', 'created_at'),
      comment_likes: await db('comment_likes').where({ user_id: userId }).select('comment_id', 'created_at'),
    };
  },
  async erase(trx, a) {
    const liked = await trx('comment_likes').where({ user_id: a.userId }).delete().returning('comment_id');
    const ids = liked.map((r: { comment_id: string }) => r.comment_id);
    if (ids.length) {
      await trx.raw(
        `update comments c set like_count = (select count(*) from comment_likes l where l.comment_id = c.id) where c.id = any(?::uuid[])`,
        [ids],
      );
    }
    await trx('comments').where({ user_id: a.userId }).update({ body: '', gif_id: null, deleted_at: trx.raw('coalesce(deleted_at, now())') });
  },
};
