import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { PaymentEvent } from '../../integrations/payments';
import type { WebhookHandler, WebhookOutcome } from './webhooks.types';

/**
 * The processor's fee on a payment, the one way every money module reads and records it (gifts,
 * monthly gifts, tips, community memberships).
 */

/**
 * The fee as the ledger records it: whole cents, more than nothing and less than the payment it
 * was taken from; anything else (unknown, unreadable, larger than the payment) is recorded as 0,
 * and reconciliation with the processor names the difference.
 */
export function cleanFee(raw: unknown, paymentCents: number | null | undefined): number {
  const fee = typeof raw === 'number' ? raw : Number(raw ?? 0);
  return Number.isSafeInteger(fee) && fee > 0 && typeof paymentCents === 'number' && fee < paymentCents ? fee : 0;
}

/**
 * Reads the fee of a PaymentIntent at the processor: a network call, so only ever before the
 * webhook's transaction opens. A failed read throws: the event answers 500 and comes again (the
 * processor's retry, the recheck), rather than settling with a fee nobody knows.
 */
export async function processorFee(ctx: AppContext, paymentIntentId: string | null | undefined): Promise<number> {
  return paymentIntentId ? ctx.payments.feeForPaymentIntent(paymentIntentId) : 0;
}

/** What a fee-bearing event paid: the PaymentIntent to ask for the fee (null: none to ask) and the amount it took. */
export interface PaidBy {
  paymentIntentId: string | null;
  amountCents: number | null;
}

/**
 * A handler of an event that brings money in, given the payment's fee: read by the handler's
 * `prefetch` (before the transaction opens, see WebhookHandler) and cleaned by cleanFee.
 */
export function withPaymentFee<E extends PaymentEvent>(
  paidBy: (event: E) => PaidBy,
  run: (ctx: AppContext, event: E, trx: Knex.Transaction, fee: number) => Promise<WebhookOutcome>,
): WebhookHandler<E> {
  const handler: WebhookHandler<E> = (ctx, event, trx, prefetched) =>
    run(ctx, event, trx, cleanFee((prefetched as { fee?: unknown } | undefined)?.fee, paidBy(event).amountCents));
  handler.prefetch = async (ctx, event) => ({ fee: await processorFee(ctx, paidBy(event).paymentIntentId) });
  return handler;
}
