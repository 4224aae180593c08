import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

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
