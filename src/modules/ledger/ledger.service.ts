import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { insertGroup, type LedgerEntry } from './ledger.repo';

export class UnbalancedLedgerGroup extends Error {}

/**
 * Posts one balanced group of entries in the caller's transaction and answers its id. Refuses
 * (throws) a group that does not sum to zero per currency, an empty group, or a non-integer
 * amount; the database checks the balance again at commit. Zero-amount entries are dropped.
 */
/**
 * The processor object a group moved money through, for reconciliation (docs/decisions/0016-recovery-and-reconciliation.md):
 * the PaymentIntent of a charge, refund or dispute; the transfer, reversal or payout itself.
 */
export interface ProcessorMove {
  ref: string | null | undefined;
  move: 'charge' | 'refund' | 'dispute' | 'transfer' | 'transfer_reversal' | 'payout';
}

export async function post(
  trx: Knex.Transaction,
  entries: LedgerEntry[],
  opts: { sourceEventId?: string | null; processor?: ProcessorMove } = {},
): Promise<string> {
  const kept = entries.filter((e) => e.amount_cents !== 0);
  if (kept.length === 0) throw new UnbalancedLedgerGroup('empty ledger group');
  const sums = new Map<string, number>();
  for (const e of kept) {
    if (!Number.isSafeInteger(e.amount_cents)) throw new UnbalancedLedgerGroup(`amount is not an integer number of cents: ${e.amount_cents}`);
    const cur = e.currency.toLowerCase();
    sums.set(cur, (sums.get(cur) ?? 0) + e.amount_cents);
  }
  for (const [cur, sum] of sums) if (sum !== 0) throw new UnbalancedLedgerGroup(`ledger group unbalanced by ${sum} ${cur}`);
  const groupId = randomUUID();
  await insertGroup(trx, groupId, kept, opts.sourceEventId ?? null, opts.processor?.ref ? { ref: opts.processor.ref, move: opts.processor.move } : null);
  return groupId;
}
