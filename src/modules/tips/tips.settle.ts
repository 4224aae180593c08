import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { emit } from '../../events';
import { accounts, post } from '../ledger';
import { cleanFee } from '../webhooks';
import * as repo from './tips.repo';

export type Outcome = 'applied' | 'ignored';

/** One processor payment of a tip: the first one or a monthly renewal. */
export interface TipPaymentFacts {
  amount_cents: number;
  currency: string;
  /** The unique processor reference of this payment: the invoice (monthly) or the checkout session (one-time). */
  invoice_id?: string | null;
  session_id?: string | null;
  payment_intent_id?: string | null;
  /** The processor's fee when known (0 when not). */
  fee_cents: number;
  event_id: string;
}

/**
 * Records one payment of a tip exactly once: a balanced ledger group (processor balance up,
 * tips revenue; the fee as an expense when known), a tip_payments row keyed by the processor's
 * reference, the tip paid, and `tip.paid` emitted, all in the webhook's transaction. A payment
 * whose amount or currency differs from the tip settles nothing and is logged. Money that
 * arrived is recorded whatever the tip's status (a late invoice after a cancellation included).
 */
export async function settleTipPayment(ctx: AppContext, trx: Knex.Transaction, tip: repo.TipRow, f: TipPaymentFacts): Promise<Outcome> {
  const currency = String(f.currency ?? '').toLowerCase();
  if (currency !== 'usd' || f.amount_cents !== tip.amount_cents) {
    ctx.log.warn(
      { tipId: tip.id, eventId: f.event_id, expected: tip.amount_cents, got: f.amount_cents, currency },
      'tip payment amount or currency differs from the tip; nothing settled',
    );
    return 'ignored';
  }
  if (await repo.paymentRecorded(trx, { invoice: f.invoice_id, session: f.session_id })) return 'ignored';
  const fee = cleanFee(f.fee_cents, f.amount_cents);
  const on = { currency: 'usd', tip_id: tip.id };
  const groupId = await post(
    trx,
    [
      { ...on, account: accounts.processorBalance, amount_cents: f.amount_cents, kind: 'tip' },
      { ...on, account: accounts.tips, amount_cents: -f.amount_cents, kind: 'tip' },
      { ...on, account: accounts.processorFees, amount_cents: fee, kind: 'processor_fee' },
      { ...on, account: accounts.processorBalance, amount_cents: -fee, kind: 'processor_fee' },
    ],
    { sourceEventId: f.event_id, processor: { ref: f.payment_intent_id ?? tip.processor_payment_intent_id, move: 'charge' } },
  );
  await repo.insertPayment(trx, {
    tip_id: tip.id,
    processor_invoice_id: f.invoice_id ?? null,
    processor_checkout_session_id: f.invoice_id ? null : (f.session_id ?? null),
    processor_payment_intent_id: f.payment_intent_id ?? null,
    amount_cents: f.amount_cents,
    fee_cents: fee,
    currency: 'usd',
    ledger_group_id: groupId,
    source_event_id: f.event_id,
  });
  await repo.updateTip(trx, tip.id, {
    status: 'paid',
    paid_at: tip.paid_at ?? (trx.fn.now() as unknown as Date),
    ...(f.payment_intent_id && !tip.processor_payment_intent_id ? { processor_payment_intent_id: f.payment_intent_id } : {}),
  });
  await emit(trx, 'tip.paid', { tip_id: tip.id, amount_cents: f.amount_cents, cadence: tip.cadence, email: tip.email, user_id: tip.user_id });
  return 'applied';
}
