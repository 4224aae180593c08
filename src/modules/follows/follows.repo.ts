import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export type FollowingType = 'user' | 'organization';

export interface FollowRow {
  id: string;
  follower_id: string;
  following_type: FollowingType;
  following_id: string;
  created_at: Date;
  deleted_at: Date | null;
}

export async function findActive(db: Q, followerId: string, type: FollowingType, targetId: string): Promise<FollowRow | undefined> {
  return db('follows').where({ follower_id: followerId, following_type: type, following_id: targetId }).whereNull('deleted_at').first();
}

/** Starts a follow; undefined when one is already active (the partial unique index decides under races). */
export async function insertActive(db: Q, followerId: string, type: FollowingType, targetId: string): Promise<FollowRow | undefined> {
  const r = await db.raw(
    `insert into follows (follower_id, following_type, following_id) values (?, ?, ?)
     on conflict (follower_id, following_type, following_id) where deleted_at is null do nothing
     returning *`,
    [followerId, type, targetId],
  );
  return r.rows[0];
}

/** Ends the active follow (the row stays: a later follow starts a new relationship). */
export async function endActive(db: Q, followerId: string, type: FollowingType, targetId: string): Promise<number> {
  return db('follows')
    .where({ follower_id: followerId, following_type: type, following_id: targetId })
    .whereNull('deleted_at')
    .update({ deleted_at: db.fn.now() });
}

export async function list(db: Q, followerId: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db('follows')
      .where({ follower_id: followerId })
      .whereNull('deleted_at')
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(limit)
      .offset(offset),
    db('follows').where({ follower_id: followerId }).whereNull('deleted_at').count<{ n: string }[]>({ n: '*' }),
  ]);
  return { rows: rows as FollowRow[], total: Number(count[0]?.n ?? 0) };
}
