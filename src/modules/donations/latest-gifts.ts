import type { Db } from '../../db/knex';
import { PUBLIC_GIFT_COLUMNS, publicGift, type PublicGiftRow } from './public-gifts';

/**
 * A campaign's newest paid gifts in the public rendering (publicGift: the donor list's and the
 * live stream's), for a campaign the caller has found readable: unlike GET /donations/recent it
 * does not skip unlisted or paused campaigns, whose widget still lists its gifts. Served by the
 * (fundraiser_id, paid_at desc) partial index of paid gifts.
 */
export async function latestPublicGifts(db: Db, fundraiserId: string, limit: number) {
  const rows = (await db('donations as d')
    .where('d.fundraiser_id', fundraiserId)
    .where('d.status', 'paid')
    .orderBy('d.paid_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .select(...PUBLIC_GIFT_COLUMNS)) as PublicGiftRow[];
  return rows.map(publicGift);
}
