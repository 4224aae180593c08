import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Refunded } from '../../integrations/payments';
import { accounts, post, type LedgerEntry } from '../ledger';
import type { WebhookHandler } from './webhooks.types';

/** A recorded payment a refund can take money back from (a tip's, a community membership's). */
export interface RefundablePayment {
  id: string;
  amount_cents: number;
  refunded_cents: number;
  currency: string;
}

/** What a module tells refundHandler about its own payments. */
export interface RefundSpec<P extends RefundablePayment> {
  /** For the log: whose payment it is ('tip', 'community'). */
  what: string;
  /** Its payment by PaymentIntent, locked. */
  lockPayment: (trx: Knex.Transaction, paymentIntentId: string) => Promise<P | undefined>;
  /**
   * When no payment of that PaymentIntent is recorded yet: the payment to refund after all (the
   * module settled it first), undefined to ignore the event; throw RetryLater to have it again.
   */
  unrecorded: (ctx: AppContext, trx: Knex.Transaction, event: Refunded, paymentIntentId: string) => Promise<P | undefined>;
  /** The account the money leaves and the columns that tag its entries (both entries carry them). */
  refundFrom: (payment: P) => Pick<LedgerEntry, 'account'> & Partial<LedgerEntry>;
  /** Ids the log names the payment by. */
  logIds: (payment: P) => Record<string, unknown>;
  /** Records the cumulative amount refunded on the payment's row. */
  setRefunded: (trx: Knex.Transaction, paymentId: string, totalCents: number) => Promise<unknown>;
  /** After the money moved: what else a refund changes (a one-time tip refunded in full reads as refunded). */
  afterRefund?: (trx: Knex.Transaction, payment: P, totalCents: number) => Promise<void>;
}

/**
 * charge.refunded for a payment a module recorded: the charge reports the amount refunded so far,
 * so only the part not yet recorded moves (redeliveries and out-of-order partial refunds change
 * nothing twice). It leaves the module's account and the processor balance in one balanced group
 * named by the PaymentIntent (reconciliation matches it to the processor's refund). The
 * processor's fee is not returned. A refund in another currency than the payment records nothing.
 */
export function refundHandler<P extends RefundablePayment>(spec: RefundSpec<P>): WebhookHandler<Refunded> {
  return async (ctx, event, trx) => {
    const pi = event.payment_intent_id;
    if (!pi) return 'ignored';
    const payment = (await spec.lockPayment(trx, pi)) ?? (await spec.unrecorded(ctx, trx, event, pi));
    if (!payment) return 'ignored';
    if (event.currency !== payment.currency.toLowerCase()) {
      ctx.log.warn({ eventId: event.id, ...spec.logIds(payment) }, `${spec.what} refund in another currency than the payment; nothing recorded`);
      return 'ignored';
    }
    const total = Math.min(event.amount_refunded_cents, payment.amount_cents);
    const delta = total - payment.refunded_cents;
    if (delta <= 0) return 'ignored';
    const from = spec.refundFrom(payment);
    const on = { ...from, currency: payment.currency, kind: 'refund' as const };
    await post(
      trx,
      [
        { ...on, amount_cents: delta },
        { ...on, account: accounts.processorBalance, amount_cents: -delta },
      ],
      { sourceEventId: event.id, processor: { ref: pi, move: 'refund' } },
    );
    await spec.setRefunded(trx, payment.id, total);
    await spec.afterRefund?.(trx, payment, total);
    return 'applied';
  };
}
