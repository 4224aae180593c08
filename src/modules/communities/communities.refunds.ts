import type { Refunded } from '../../integrations/payments';
import { accounts, post } from '../ledger';
import { RetryLater, type WebhookHandler } from '../webhooks';
import { fundAccount } from './communities.fund';
import * as repo from './communities.repo';

const RETRY_FOR_MS = 3 * 86_400_000;

/**
 * charge.refunded for a community payment (a refund made at the processor: support, the
 * dashboard): the charge reports the amount refunded so far, so only the part not yet recorded
 * leaves the fund and the processor balance, in one balanced group named by the PaymentIntent
 * (reconciliation matches it to the processor's refund). The processor's fee is not returned,
 * so the fund keeps bearing it. The membership is left alone: ending it is the subscription's
 * own event. A refund of a payment not recorded yet (its invoice.paid still on its way) is
 * retried for 3 days, as the webhook and the event catch-up retry a RetryLater.
 */
export const communityRefunded: WebhookHandler<Refunded> = async (ctx, event, trx) => {
  const pi = event.payment_intent_id;
  if (!pi) return 'ignored';
  const payment = await repo.lockPaymentByIntent(trx, pi);
  if (!payment) {
    if (event.ref?.kind !== 'community_join') return 'ignored';
    // Retried while its payment may still arrive (the processor's own retry window); past it the
    // refund is left to the day's reconciliation, which names it missing_in_ledger.
    if (Date.now() - event.created.getTime() < RETRY_FOR_MS) throw new RetryLater(`refund ${event.id} came before its community payment`);
    ctx.log.warn({ eventId: event.id, paymentIntent: pi }, 'refund of a community payment never recorded; left to reconciliation');
    return 'ignored';
  }
  if (event.currency !== payment.currency.toLowerCase()) {
    ctx.log.warn({ eventId: event.id, joinId: payment.join_id }, 'community refund in another currency than the payment; nothing recorded');
    return 'ignored';
  }
  const total = Math.min(event.amount_refunded_cents, payment.amount_cents);
  const delta = total - payment.refunded_cents;
  if (delta <= 0) return 'ignored';
  const on = { currency: payment.currency };
  await post(
    trx,
    [
      { ...on, account: fundAccount(payment.community_id), amount_cents: delta, kind: 'refund' },
      { ...on, account: accounts.processorBalance, amount_cents: -delta, kind: 'refund' },
    ],
    { sourceEventId: event.id, processor: { ref: pi, move: 'refund' } },
  );
  await repo.setPaymentRefunded(trx, payment.id, total);
  return 'applied';
};
