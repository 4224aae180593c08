import type { Db } from '../../db/knex';

/**
 * Deletes finished deliveries (delivered or given up) older than `days`; pending ones stay
 * whatever their age. Answers how many. For the periodic prune task: the delivery log keeps a month.
 */
export async function pruneWebhookDeliveries(db: Db, days: number): Promise<number> {
  return db('webhook_deliveries')
    .whereNot('status', 'pending')
    .where('created_at', '<', db.raw('now() - make_interval(days => ?)', [days]))
    .del();
}
