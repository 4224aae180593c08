import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** The columns of a paid gift that the public may see (or that decide what it may see). */
export interface PublicGiftRow {
  id: string;
  amount_cents: string | number;
  currency: string;
  donor_name: string | null;
  anonymous: boolean;
  message: string | null;
  paid_at: Date | string;
}

export const PUBLIC_GIFT_COLUMNS = ['d.id', 'd.amount_cents', 'd.currency', 'd.donor_name', 'd.anonymous', 'd.message', 'd.paid_at'] as const;

/**
 * The one public rendering of a settled gift, shared by the donor list (GET /donations/recent) and
 * the live stream's `donation` event: no name for an anonymous gift, `created_at` is when it was
 * paid, never an email or a person's id (the row does not even carry them).
 */
export function publicGift(r: PublicGiftRow) {
  return {
    id: r.id,
    amount_cents: Number(r.amount_cents),
    currency: r.currency,
    donor_name: r.anonymous ? null : r.donor_name,
    message: r.message,
    created_at: new Date(r.paid_at).toISOString(),
  };
}

export type PublicGift = ReturnType<typeof publicGift>;

/** A settled gift as the live stream carries it, with its position in the campaign's journal. */
export interface JournalGift {
  seq: string;
  gift: PublicGift;
}

/**
 * Gifts of one campaign settled after journal position `after` (migration
 * 20261201100000_create_live_gifts: positions follow commit order within a campaign), oldest
 * first, still paid. `newest`: only the newest `limit` of them (a reconnect's replay); `since`:
 * none settled before it.
 */
export async function journalGiftsAfter(
  db: Q,
  fundraiserId: string,
  after: string,
  opts: { limit: number; newest?: boolean; since?: Date },
): Promise<JournalGift[]> {
  const q = db('live_gifts as lg')
    .join('donations as d', 'd.id', 'lg.donation_id')
    .where('lg.fundraiser_id', fundraiserId)
    .where('lg.seq', '>', after)
    .where('d.status', 'paid')
    .orderBy('lg.seq', opts.newest ? 'desc' : 'asc')
    .limit(opts.limit)
    .select('lg.seq', ...PUBLIC_GIFT_COLUMNS);
  if (opts.since) q.where('lg.settled_at', '>=', opts.since);
  const rows = (await q) as Array<PublicGiftRow & { seq: string }>;
  if (opts.newest) rows.reverse();
  return rows.map((r) => ({ seq: String(r.seq), gift: publicGift(r) }));
}

/** The campaign's latest journal position ('0' when none): where a new viewer's stream starts. */
export async function journalHead(db: Q, fundraiserId: string): Promise<string> {
  const row = await db('live_gifts').where('fundraiser_id', fundraiserId).max('seq as seq').first();
  return row?.seq ? String(row.seq) : '0';
}

/** Drops journal rows older than the replay window allows anyone to ask for. */
export async function pruneJournal(db: Q, olderThanMs: number): Promise<number> {
  return db('live_gifts').where('settled_at', '<', new Date(Date.now() - olderThanMs)).del();
}
