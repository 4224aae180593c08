import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/**
 * A gift's note is a comment by its donor carrying the gift's id (the donations module's receipts
 * post and show it). These are the comments module's commands and reads for it.
 */

/**
 * The gift's one live note as a comment by its donor: a second note replaces the first (the
 * partial unique index on comments.donation_id makes concurrent notes converge on one row).
 */
export async function upsertDonationNote(db: Q, n: { donationId: string; fundraiserId: string; userId: string; body: string }): Promise<string> {
  const { rows } = await db.raw(
    `insert into comments (fundraiser_id, user_id, body, donation_id) values (?, ?, ?, ?)
     on conflict (donation_id) where donation_id is not null and deleted_at is null
     do update set body = excluded.body
     returning id`,
    [n.fundraiserId, n.userId, n.body, n.donationId],
  );
  return rows[0].id as string;
}

/**
 * SQL for the body of a gift's live note (null without one), as a scalar subquery to select
 * beside the gift: `donationIdRef` names the gift id column of the enclosing query (`d.id`).
 */
export function liveDonationNoteSql(db: Q, donationIdRef: string): Knex.Raw {
  return db.raw('(select c.body from comments c where c.donation_id = ?? and c.deleted_at is null limit 1)', [donationIdRef]);
}
