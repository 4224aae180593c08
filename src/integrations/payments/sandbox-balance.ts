import type { Db } from '../../db/knex';
import type { BalanceTransaction } from './port';
import { nowS, sbId } from './sandbox-objects';
import { createObject } from './sandbox.repo';
import { toBalanceTransaction } from './stripe-balance';

/**
 * The sandbox's balance-transactions record: every movement of money it makes (charges with
 * their fee, refunds, transfers and their reversals, connected payouts) is kept as a
 * Stripe-shaped `balance_transaction` object, with its source object's id (and PaymentIntent)
 * as Stripe's `expand[]=data.source` shows it, and listed by time like GET /v1/balance_transactions.
 */

export interface SandboxBalanceInput {
  id?: string;
  type: 'charge' | 'refund' | 'adjustment' | 'transfer' | 'transfer_refund' | 'payout' | 'payout_failure';
  amount: number;
  fee?: number;
  currency: string;
  source: { id: string; object: string; payment_intent?: string | null; account?: string | null };
}

/** Records one movement, in the caller's transaction (with the object that caused it). */
export async function recordBalanceTxn(db: Db, input: SandboxBalanceInput): Promise<string> {
  const id = input.id ?? sbId('txn');
  const fee = input.fee ?? 0;
  await createObject(db, 'balance_transaction', id, {
    id,
    object: 'balance_transaction',
    type: input.type,
    amount: input.amount,
    fee,
    net: input.amount - fee,
    currency: input.currency.toLowerCase(),
    source: input.source,
    status: 'available',
    created: nowS(),
  });
  return id;
}

/** A succeeded charge's movement: its gross, the fee the processor keeps, under the id the charge names. */
export function recordChargeTxn(db: Db, charge: { id: string; amount: number; currency: string; payment_intent: string; balance_transaction: { id: string; fee: number } }): Promise<string> {
  return recordBalanceTxn(db, {
    id: charge.balance_transaction.id,
    type: 'charge',
    amount: charge.amount,
    fee: charge.balance_transaction.fee,
    currency: charge.currency,
    source: { id: charge.id, object: 'charge', payment_intent: charge.payment_intent },
  });
}

const PAGE = 1000;

/**
 * The balance transactions created in [from, to), oldest first, one page at a time (keyset on
 * the creation time and id), so a day of any size is never held whole.
 */
export async function* listSandboxBalanceTxns(db: Db, from: Date, to: Date): AsyncIterable<BalanceTransaction[]> {
  // The cursor keeps Postgres's own text of the time (microseconds): a JS Date would round it.
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const q = db('sandbox_objects')
      .where({ kind: 'balance_transaction' })
      .andWhere('created_at', '>=', from)
      .andWhere('created_at', '<', to);
    if (after) q.andWhereRaw('(created_at, id) > (?::timestamptz, ?)', [after.at, after.id]);
    const rows: Array<{ id: string; data: Record<string, unknown>; created_at: Date; at: string }> = await q
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(PAGE)
      .select('id', 'data', 'created_at', db.raw('created_at::text as at'));
    if (rows.length === 0) return;
    yield rows.map((r) => toBalanceTransaction({ ...r.data, created: r.created_at.getTime() / 1000 }));
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1]!;
    after = { at: last.at, id: last.id };
  }
}
