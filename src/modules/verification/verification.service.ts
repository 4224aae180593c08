// CONTRACT STUB (owner: mail/verification work). Replace the body, keep the signature.
import type { Knex } from 'knex';
import type { AppContext } from '../../context';

/** Issues a fresh 24-hour single-use link (replacing older ones) and queues the mail. */
export async function sendEmailVerification(
  _ctx: AppContext,
  _trx: Knex | Knex.Transaction,
  _user: { id: string; email: string; locale?: string | null },
): Promise<void> {
  // stub
}
