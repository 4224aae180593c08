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

/** True when a row was added (not already blocked). */
export async function insert(db: Q, blockerId: string, blockedId: string): Promise<boolean> {
  const rows = await db('user_blocks').insert({ blocker_id: blockerId, blocked_id: blockedId }).onConflict(['blocker_id', 'blocked_id']).ignore().returning('blocker_id');
  return rows.length > 0;
}

export async function remove(db: Q, blockerId: string, blockedId: string): Promise<number> {
  return db('user_blocks').where({ blocker_id: blockerId, blocked_id: blockedId }).del();
}

export async function isBlocked(db: Q, blockerId: string, blockedId: string): Promise<boolean> {
  return Boolean(await db('user_blocks').where({ blocker_id: blockerId, blocked_id: blockedId }).first('blocker_id'));
}

export async function blockedIds(db: Q, blockerId: string): Promise<string[]> {
  return (await db('user_blocks').where({ blocker_id: blockerId }).pluck('blocked_id')) as string[];
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

// A small read of the identity table: whether the account to block exists.
export async function userExists(db: Q, id: string): Promise<boolean> {
  return Boolean(await db('users').where({ id }).first('id'));
}
