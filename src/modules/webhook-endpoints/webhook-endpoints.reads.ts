/**
 * Read-only view for routing payout events to endpoints. Foreign table it reads:
 * - processor_accounts (payouts): who holds a connected account (a user or an organization),
 *   since payout events name the account; the payouts module publishes no such read.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { Owner } from './webhook-endpoints.repo';

type Q = Db | Knex.Transaction;

/** The owner of a connected account (payouts name the account). */
export async function processorAccountOwner(db: Q, accountId: string): Promise<Owner | null> {
  const r = await db('processor_accounts').where({ id: accountId }).first('owner_type', 'owner_id');
  if (!r) return null;
  return r.owner_type === 'organization' ? { kind: 'organization', id: r.owner_id } : { kind: 'user', id: r.owner_id };
}
