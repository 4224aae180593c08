import type { Refunded } from '../../integrations/payments';
import type { WebhookHandler } from '../webhooks';
import { accounts, post } from '../ledger';
import * as repo from './tips.repo';

/**
 * charge.refunded for a tip payment: the charge reports the amount refunded so far, so only the
 * part not yet recorded moves (redeliveries and out-of-order partial refunds change nothing
 * twice). The refund leaves tips revenue and the processor balance in one balanced group; a
 * one-time tip refunded in full reads as refunded. A charge that is not a tip's is left alone.
 */
export const tipRefunded: WebhookHandler<Refunded> = async (ctx, event, trx) => {
  const pi = event.payment_intent_id;
  if (!pi) return 'ignored';
  const payment = await repo.lockPaymentByIntent(trx, pi);
  if (!payment) return 'ignored';
  if (event.currency !== payment.currency.toLowerCase()) {
    ctx.log.warn({ eventId: event.id, tipId: payment.tip_id }, 'tip refund in another currency than the payment; nothing recorded');
    return 'ignored';
  }
  const total = Math.min(event.amount_refunded_cents, payment.amount_cents);
  const delta = total - payment.refunded_cents;
  if (delta <= 0) return 'ignored';
  const on = { currency: payment.currency, tip_id: payment.tip_id };
  await post(
    trx,
    [
      { ...on, account: accounts.tips, amount_cents: delta, kind: 'refund' },
      { ...on, account: accounts.processorBalance, amount_cents: -delta, kind: 'refund' },
    ],
    { sourceEventId: event.id },
  );
  await repo.setPaymentRefunded(trx, payment.id, total);
  const tip = await repo.lockTip(trx, payment.tip_id);
  if (tip && tip.cadence === 'one_time' && total === payment.amount_cents) await repo.updateTip(trx, tip.id, { status: 'refunded' });
  return 'applied';
};
