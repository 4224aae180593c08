import type { Knex } from 'knex';
import { enqueue } from '../../infra/jobs';
import type { CallRow } from './processor-calls.repo';

/** Runs one claimed processor call outside any transaction, then confirms it (settle.ts). */
export const CALL_QUEUE = 'payouts.call';
const BACKSTOP_DELAY_MS = 60_000;

/**
 * Queues the call's job in the claim's transaction, so a claim that commits is always called
 * (a crash after the commit loses nothing); the job, the sweep and `POST /payouts/refresh` all
 * re-call with the claim's idempotency key, so whichever comes second finds it done.
 */
export async function queueCall(trx: Knex.Transaction, call: CallRow | null | undefined, opts: { backstop?: boolean } = {}): Promise<void> {
  if (call?.status !== 'pending') return;
  // A backstop for a call its caller runs at once: late enough not to race it at the processor
  // (Stripe refuses a key whose first request is still in flight).
  const runAt = opts.backstop ? new Date(Date.now() + BACKSTOP_DELAY_MS) : undefined;
  await enqueue(trx, CALL_QUEUE, { call_id: call.id }, { singletonKey: call.id, maxAttempts: 10, runAt });
}
