import type { Db } from '../../db/knex';

/** Gifts that were ever paid (refunded ones included): what a restored copy must still hold. */
export async function settledGiftCount(db: Db): Promise<number> {
  const r = await db('donations').whereNotNull('paid_at').count<{ n: number }[]>({ n: '*' });
  return Number(r[0]?.n ?? 0);
}
