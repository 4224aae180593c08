/**
 * Read-only view for the caller's block list. Foreign table it reads:
 * - users (idp): each blocked account's public face (name, avatar, profile slug), joined so that
 *   the list is ordered and paged in one query.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface BlockedUserRow {
  id: string;
  name: string | null;
  avatar: string | null;
  handle: string | null;
  blocked_at: Date;
}

/** The caller's blocks, newest first, with each user's public face only (never an email). */
export async function list(db: Q, blockerId: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db('user_blocks as b')
      .join('users as u', 'u.id', 'b.blocked_id')
      .where('b.blocker_id', blockerId)
      .orderBy([{ column: 'b.created_at', order: 'desc' }, { column: 'b.blocked_id', order: 'desc' }])
      .limit(limit)
      .offset(offset)
      .select('u.id', 'u.name', 'u.avatar', 'u.profile_slug as handle', 'b.created_at as blocked_at'),
    db('user_blocks').where({ blocker_id: blockerId }).count<{ n: string }[]>({ n: '*' }),
  ]);
  return { rows: rows as BlockedUserRow[], total: Number(count[0]?.n ?? 0) };
}
