import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** The stored toggles (types never switched are absent: they count as on). */
export async function stored(db: Q, userId: string): Promise<Record<string, boolean>> {
  const row = await db('notification_preferences').where({ user_id: userId }).first('email');
  return (row?.email as Record<string, boolean> | undefined) ?? {};
}

/** Merges `changes` into the stored toggles in one statement (concurrent PATCHes of different types both land). */
export async function merge(db: Q, userId: string, changes: Record<string, boolean>): Promise<void> {
  await db.raw(
    `insert into notification_preferences (user_id, email, updated_at) values (?, ?::jsonb, now())
     on conflict (user_id) do update set email = notification_preferences.email || excluded.email, updated_at = now()`,
    [userId, JSON.stringify(changes)],
  );
}
