import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface NotificationRow {
  id: string;
  user_id: string;
  type: string;
  category: string;
  priority: string;
  title: string;
  message: string;
  icon: string | null;
  action_url: string | null;
  action_label: string | null;
  metadata: Record<string, unknown>;
  is_read: boolean;
  is_archived: boolean;
  read_at: Date | null;
  created_at: Date;
  dedupe_key: string;
}

export type NewNotification = Omit<NotificationRow, 'id' | 'is_read' | 'is_archived' | 'read_at' | 'created_at'>;

/** Inserts once per dedupe key; answers the new row's id, or null when that fact was already notified. */
export async function insertOnce(db: Q, n: NewNotification): Promise<string | null> {
  const rows = await db('notifications')
    .insert({ ...n, metadata: JSON.stringify(n.metadata ?? {}) })
    .onConflict('dedupe_key')
    .ignore()
    .returning('id');
  return rows[0]?.id ?? null;
}

export async function list(db: Q, userId: string, archived: boolean, limit: number): Promise<NotificationRow[]> {
  return db('notifications')
    .where({ user_id: userId, is_archived: archived })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit);
}

export async function findById(db: Q, id: string): Promise<NotificationRow | undefined> {
  return db('notifications').where({ id }).first();
}

export async function unreadCount(db: Q, userId: string): Promise<number> {
  const [r] = await db('notifications').where({ user_id: userId, is_read: false, is_archived: false }).count<{ n: string }[]>({ n: '*' });
  return Number(r?.n ?? 0);
}

/** Marks the caller's unread rows among `ids` read (foreign and unknown ids match nothing). */
export async function markRead(db: Q, userId: string, ids: string[] | 'all'): Promise<number> {
  const q = db('notifications').where({ user_id: userId, is_read: false });
  if (ids !== 'all') q.whereIn('id', ids);
  return q.update({ is_read: true, read_at: db.fn.now() });
}

/** Archives the caller's not yet archived rows among `ids` and marks them read (read_at kept when already read). */
export async function archive(db: Q, userId: string, ids: string[]): Promise<number> {
  return db('notifications')
    .where({ user_id: userId, is_archived: false })
    .whereIn('id', ids)
    .update({ is_archived: true, is_read: true, read_at: db.raw('coalesce(read_at, now())') });
}

export async function remove(db: Q, userId: string, ids: string[]): Promise<number> {
  return db('notifications').where({ user_id: userId }).whereIn('id', ids).delete();
}
