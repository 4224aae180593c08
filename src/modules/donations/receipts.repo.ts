import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface ReceiptRow {
  id: string;
  receipt_id: string;
  fundraiser_id: string;
  fundraiser_title: string;
  fundraiser_slug: string;
  donor_user_id: string | null;
  donor_name: string | null;
  anonymous: boolean;
  amount_cents: string | number;
  tip_cents: string | number;
  currency: string;
  locale: string;
  paid_at: Date;
  note: string | null;
}

/** A settled gift (paid, or paid and later refunded) by its receipt id, with its live note. */
export async function findReceipt(db: Q, receiptId: string): Promise<ReceiptRow | undefined> {
  const { rows } = await db.raw(
    `select d.id, d.receipt_id, d.fundraiser_id, f.title as fundraiser_title, f.slug as fundraiser_slug,
            d.donor_user_id, d.donor_name, d.anonymous, d.amount_cents, d.tip_cents, d.currency, d.locale, d.paid_at,
            (select c.body from comments c where c.donation_id = d.id and c.deleted_at is null limit 1) as note
       from donations d join fundraisers f on f.id = d.fundraiser_id
      where d.receipt_id = ? and d.paid_at is not null`,
    [receiptId],
  );
  return rows[0];
}

/**
 * The gift's one live note as a comment by its donor: a second note replaces the first (the
 * partial unique index on comments.donation_id makes concurrent notes converge on one row).
 */
export async function upsertNote(db: Q, n: { donationId: string; fundraiserId: string; userId: string; body: string }): Promise<string> {
  const { rows } = await db.raw(
    `insert into comments (fundraiser_id, user_id, body, donation_id) values (?, ?, ?, ?)
     on conflict (donation_id) where donation_id is not null and deleted_at is null
     do update set body = excluded.body
     returning id`,
    [n.fundraiserId, n.userId, n.body, n.donationId],
  );
  return rows[0].id as string;
}

export interface RecentRow {
  id: string;
  amount_cents: string | number;
  currency: string;
  donor_name: string | null;
  anonymous: boolean;
  message: string | null;
  paid_at: Date;
  fundraiser_id: string;
  title: string;
  slug: string;
}

/** Paid gifts to public, active or ended campaigns, newest first (the partial paid_at indexes serve both shapes). */
export async function recentGifts(db: Q, fundraiserId: string | undefined, limit: number): Promise<RecentRow[]> {
  const q = db('donations as d')
    .join('fundraisers as f', 'f.id', 'd.fundraiser_id')
    .where('d.status', 'paid')
    .whereIn('f.status', ['active', 'ended'])
    .where('f.visibility', 'public')
    .whereNull('f.deleted_at')
    .orderBy('d.paid_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .select('d.id', 'd.amount_cents', 'd.currency', 'd.donor_name', 'd.anonymous', 'd.message', 'd.paid_at', 'd.fundraiser_id', 'f.title', 'f.slug');
  if (fundraiserId) q.where('d.fundraiser_id', fundraiserId);
  return q;
}
