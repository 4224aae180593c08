import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Refunded } from '../../integrations/payments';
import { refundHandler, RetryLater } from '../webhooks';
import { fundAccount } from './communities.fund';
import * as repo from './communities.repo';

const RETRY_FOR_MS = 3 * 86_400_000;

/**
 * A refund of a community payment not recorded yet (its invoice.paid still on its way) is retried
 * for 3 days, as the webhook and the event catch-up retry a RetryLater; past that it is left to
 * the day's reconciliation, which names it missing_in_ledger.
 */
async function notYetRecorded(ctx: AppContext, _trx: Knex.Transaction, event: Refunded, pi: string): Promise<undefined> {
  if (event.ref?.kind !== 'community_join') return undefined;
  if (Date.now() - event.created.getTime() < RETRY_FOR_MS) throw new RetryLater(`refund ${event.id} came before its community payment`);
  ctx.log.warn({ eventId: event.id, paymentIntent: pi }, 'refund of a community payment never recorded; left to reconciliation');
  return undefined;
}

/**
 * charge.refunded for a community payment (a refund made at the processor: support, the
 * dashboard; the steps: webhooks/payment-refund.ts): the money leaves the fund, which keeps
 * bearing the processor's fee. The membership is left alone: ending it is the subscription's own
 * event.
 */
export const communityRefunded = refundHandler({
  what: 'community',
  lockPayment: repo.lockPaymentByIntent,
  unrecorded: notYetRecorded,
  refundFrom: (p) => ({ account: fundAccount(p.community_id) }),
  logIds: (p) => ({ joinId: p.join_id }),
  setRefunded: repo.setPaymentRefunded,
});
