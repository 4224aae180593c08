import type { Knex } from 'knex';
import { enqueue } from '../../jobs/queue';
import type { CallRow } from './processor-calls.repo';

/** Runs one claimed processor call outside any transaction, then confirms it (settle.ts). */
export const CALL_QUEUE = 'payouts.call';

/**
 * Queues the call's job in the claim's transaction, so a claim that commits is always called
 * (a crash after the commit loses nothing); the job, the sweep and `POST /payouts/refresh` all
 * re-call with the claim's idempotency key, so whichever comes second finds it done.
 */
export async function queueCall(trx: Knex.Transaction, call: CallRow | null | undefined): Promise<void> {
  if (call?.status === 'pending') await enqueue(trx, CALL_QUEUE, { call_id: call.id }, { singletonKey: call.id, maxAttempts: 10 });
}
