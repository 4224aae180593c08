/** The activity module's own table: presence pings ("viewing now"). Feed reads are in activity.reads.ts. */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** Marks the visitor (a one-way hash) as having the campaign open now. */
export async function touchPresence(db: Q, fundraiserId: string, visitorHash: string): Promise<void> {
  await db.raw(
    `insert into presence_pings (fundraiser_id, visitor_hash, seen_at) values (?, ?, now())
     on conflict (fundraiser_id, visitor_hash) do update set seen_at = excluded.seen_at`,
    [fundraiserId, visitorHash],
  );
}

/** Forgets visitors not seen for an hour (presence only ever looks two minutes back). */
export async function prunePresence(db: Q): Promise<void> {
  await db('presence_pings').where('seen_at', '<', db.raw(`now() - interval '1 hour'`)).delete();
}
