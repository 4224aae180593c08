import type { BalanceMove, BalanceTransaction } from './port';
import { date, idOf, isObj, str } from './stripe-events';

/** Stripe's balance transactions (also the sandbox's) in the reconciliation's terms. */

type Obj = Record<string, unknown>;

const MOVES: Record<string, BalanceMove> = {
  charge: 'charge',
  payment: 'charge',
  refund: 'refund',
  payment_refund: 'refund',
  refund_failure: 'refund',
  payment_failure_refund: 'refund',
  adjustment: 'dispute',
  dispute: 'dispute',
  dispute_reversal: 'dispute',
  transfer: 'transfer',
  transfer_refund: 'transfer_reversal',
  transfer_cancel: 'transfer_reversal',
  transfer_failure: 'transfer_reversal',
  payout: 'payout',
  payout_cancel: 'payout',
  payout_failure: 'payout',
  stripe_fee: 'fee',
  application_fee: 'fee',
  tax_fee: 'fee',
};

/**
 * A balance transaction (Stripe's shape, `source` expanded or an id) in the service's terms.
 * A dispute shows as an `adjustment` whose source is the dispute; the id a ledger group keeps
 * for charges, refunds and disputes is the PaymentIntent (a Checkout gift learns no charge id).
 */
export function toBalanceTransaction(bt: Obj): BalanceTransaction {
  const src = isObj(bt.source) ? bt.source : null;
  const type = str(bt.type) ?? 'unknown';
  let move: BalanceMove = MOVES[type] ?? 'other';
  if (src?.object === 'dispute') move = 'dispute';
  const viaIntent = move === 'charge' || move === 'refund' || move === 'dispute';
  const ref = viaIntent ? (idOf(src?.payment_intent) ?? idOf(src?.charge) ?? idOf(bt.source)) : move === 'fee' || move === 'other' ? null : idOf(bt.source);
  const amount = Number(bt.amount);
  const fee = Number(bt.fee ?? 0);
  return {
    id: String(bt.id),
    type,
    move,
    ref,
    amount_cents: amount,
    fee_cents: fee,
    net_cents: bt.net === undefined || bt.net === null ? amount - fee : Number(bt.net),
    currency: (str(bt.currency) ?? '').toLowerCase(),
    created: date(bt.created) ?? new Date(0),
  };
}
