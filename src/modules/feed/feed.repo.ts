import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { FEED_ITEMS_UNTIL } from './feed.updates.reads';

type Q = Db | Knex.Transaction;

export async function markRead(db: Q, me: string, updateId: string): Promise<number> {
  const r = await db.raw(
    'insert into campaign_update_reads (user_id, update_id) values (?, ?) on conflict do nothing',
    [me, updateId],
  );
  return r.rowCount ?? 0;
}

/**
 * Marks every unread item of :me's feed (posted at or before `until` when given) read; answers
 * how many. created_at is stored to the microsecond but printed to the millisecond, so `until`
 * is compared at the precision the caller saw (an item's own printed created_at includes it).
 */
export async function markAllRead(db: Q, me: string, until: string | null): Promise<number> {
  const r = await db.raw(
    `${FEED_ITEMS_UNTIL}
     insert into campaign_update_reads (user_id, update_id)
     select :me, id from items
     on conflict do nothing`,
    { me, until },
  );
  return r.rowCount ?? 0;
}
