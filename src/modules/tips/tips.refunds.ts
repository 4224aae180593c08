import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Refunded } from '../../integrations/payments';
import type { WebhookHandler } from '../webhooks';
import { accounts, post } from '../ledger';
import * as repo from './tips.repo';
import { settleTipPayment } from './tips.settle';

/**
 * A refund that arrives before its one-time tip's success proves the payment: the tip is settled
 * from the charge first (its checkout session is the payment's key, so the later success
 * changes nothing). Answers the recorded payment, or undefined when the refund names no such tip.
 */
async function settleFirst(ctx: AppContext, trx: Knex.Transaction, event: Refunded, pi: string) {
  const tipId = event.ref?.kind === 'tip' ? event.ref.id : null;
  const tip = tipId ? await repo.lockTip(trx, tipId) : undefined;
  if (!tip || tip.cadence !== 'one_time' || !tip.processor_checkout_session_id) return undefined;
  const facts = { amount_cents: event.amount_cents, currency: event.currency, session_id: tip.processor_checkout_session_id, payment_intent_id: pi, fee_cents: 0, event_id: event.id };
  if ((await settleTipPayment(ctx, trx, tip, facts)) !== 'applied') return undefined;
  return repo.lockPaymentByIntent(trx, pi);
}

/**
 * charge.refunded for a tip payment: the charge reports the amount refunded so far, so only the
 * part not yet recorded moves (redeliveries and out-of-order partial refunds change nothing
 * twice). The refund leaves tips revenue and the processor balance in one balanced group; a
 * one-time tip refunded in full reads as refunded; one refunded before its success is settled
 * first. A charge that is not a tip's is left alone.
 */
export const tipRefunded: WebhookHandler<Refunded> = async (ctx, event, trx) => {
  const pi = event.payment_intent_id;
  if (!pi) return 'ignored';
  const payment = (await repo.lockPaymentByIntent(trx, pi)) ?? (await settleFirst(ctx, trx, event, pi));
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
    { sourceEventId: event.id, processor: { ref: pi, move: 'refund' } },
  );
  await repo.setPaymentRefunded(trx, payment.id, total);
  const tip = await repo.lockTip(trx, payment.tip_id);
  if (tip && tip.cadence === 'one_time' && total === payment.amount_cents) await repo.updateTip(trx, tip.id, { status: 'refunded' });
  return 'applied';
};
