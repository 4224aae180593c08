import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export async function insert(
  db: Q,
  row: { fundraiser_id: string; user_id: string; parent_id: string | null; body: string; gif_id: string | null },
): Promise<string> {
  const [r] = await db('comments').insert(row).returning('id');
  return r.id as string;
}

export async function softDelete(db: Q, id: string): Promise<void> {
  await db('comments').where({ id }).update({ deleted_at: db.fn.now() });
}

/** Idempotent like: the counter moves only when a row was really added or removed. */
export async function setLike(trx: Knex.Transaction, commentId: string, userId: string, liked: boolean): Promise<number> {
  const changed = liked
    ? (await trx('comment_likes').insert({ comment_id: commentId, user_id: userId }).onConflict(['comment_id', 'user_id']).ignore().returning('comment_id')).length
    : await trx('comment_likes').where({ comment_id: commentId, user_id: userId }).del();
  const q = trx('comments').where({ id: commentId });
  const [row] = changed
    ? await (liked ? q.increment('like_count', 1) : q.decrement('like_count', 1)).returning('like_count')
    : await q.select('like_count');
  return Number(row.like_count);
}
