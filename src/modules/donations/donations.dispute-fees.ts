import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { DisputeClosed, DisputeOpened } from '../../integrations/payments';
import { accounts, post } from '../ledger';
import * as repo from './donations.repo';
import type { DonationRow } from './donations.repo';
import type { Outcome } from './donations.settle';

/**
 * The processor's dispute fee (Stripe: a fixed fee per dispute, given back with some wins)
 * leaves the platform's processor balance as the platform's loss, never the campaign's: one
 * balanced group per change, named by the PaymentIntent and the dispute movement, so the day's
 * reconciliation meets the processor's dispute balance transaction net of its fee. The
 * dispute's balance transactions only grow, so an event listing more of them than the gift has
 * recorded carries the newer total; an older one arriving late changes nothing.
 */
async function recordDisputeFees(trx: Knex.Transaction, d: DonationRow, e: DisputeOpened | DisputeClosed): Promise<boolean> {
  const fees = e.fees;
  if (!fees || fees.txns <= d.dispute_fee_txns) return false;
  const delta = fees.cents - d.dispute_fee_cents;
  if (delta !== 0) {
    const on = { currency: d.currency, fundraiser_id: d.fundraiser_id, donation_id: d.id, kind: 'dispute_fee' as const };
    await post(
      trx,
      [
        { ...on, account: accounts.losses, amount_cents: delta },
        { ...on, account: accounts.processorBalance, amount_cents: -delta },
      ],
      { sourceEventId: e.id, processor: { ref: d.processor_payment_intent_id, move: 'dispute' } },
    );
  }
  await repo.setDisputeFees(trx, d.id, fees);
  return true;
}

type DisputeRun<E> = (ctx: AppContext, trx: Knex.Transaction, d: DonationRow, event: E, fee: number) => Promise<Outcome>;

/** A dispute handler that also records the dispute's fees once the gift is settled (a dispute may settle it first). */
export function withDisputeFees<E extends DisputeOpened | DisputeClosed>(run: DisputeRun<E>): DisputeRun<E> {
  return async (ctx, trx, d, e, fee) => {
    const outcome = await run(ctx, trx, d, e, fee);
    const now = await repo.findById(trx, d.id, true);
    if (!now || now.paid_at === null) return outcome;
    return (await recordDisputeFees(trx, now, e)) ? 'applied' : outcome;
  };
}
