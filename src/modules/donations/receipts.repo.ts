import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { liveDonationNoteSql } from '../comments';
import { campaignJoinSql, joinCampaign, whereCampaignListed } from '../fundraisers';
import type { PublicGiftRow } from './public-gifts';

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
            ? as note
       from donations d ${campaignJoinSql('f', 'd.fundraiser_id')}
      where d.receipt_id = ? and d.paid_at is not null`,
    [liveDonationNoteSql(db, 'd.id'), receiptId],
  );
  return rows[0];
}

/** A gift of the public list: the public columns, and the campaign it went to. */
export interface RecentRow extends PublicGiftRow {
  paid_at: Date;
  fundraiser_id: string;
  title: string;
  slug: string;
}

/** Paid gifts to public, active or ended campaigns, newest first (the partial paid_at indexes serve both shapes). */
export async function recentGifts(db: Q, fundraiserId: string | undefined, limit: number): Promise<RecentRow[]> {
  const q = whereCampaignListed(joinCampaign(db('donations as d'), 'f', 'd.fundraiser_id'), 'f')
    .where('d.status', 'paid')
    .orderBy('d.paid_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .select('d.id', 'd.amount_cents', 'd.currency', 'd.donor_name', 'd.anonymous', 'd.message', 'd.paid_at', 'd.fundraiser_id', 'f.title', 'f.slug');
  if (fundraiserId) q.where('d.fundraiser_id', fundraiserId);
  return q;
}
