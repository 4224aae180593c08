import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Refunded } from '../../integrations/payments';
import { refundHandler } from '../webhooks';
import { accounts } from '../ledger';
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
 * charge.refunded for a tip payment (the steps: webhooks/payment-refund.ts): the refund leaves
 * tips revenue; a one-time tip refunded in full reads as refunded; one refunded before its
 * success is settled first. A charge that is not a tip's is left alone.
 */
export const tipRefunded = refundHandler({
  what: 'tip',
  lockPayment: repo.lockPaymentByIntent,
  unrecorded: settleFirst,
  refundFrom: (p) => ({ account: accounts.tips, tip_id: p.tip_id }),
  logIds: (p) => ({ tipId: p.tip_id }),
  setRefunded: repo.setPaymentRefunded,
  afterRefund: async (trx, payment, total) => {
    const tip = await repo.lockTip(trx, payment.tip_id);
    if (tip && tip.cadence === 'one_time' && total === payment.amount_cents) await repo.updateTip(trx, tip.id, { status: 'refunded' });
  },
});
