import type { Knex } from 'knex';
import { emit } from '../../../events';
import { enqueue } from '../../../infra/jobs';
import { findById as findFundraiser, setRecurringDonorCount } from '../../fundraisers';
import { organizationHolderUserId } from '../../organizations';
import * as rrepo from './recurring.repo';
import type { CanceledBy, RecurringGiftRow } from './recurring.repo';

/**
 * State changes of a monthly gift shared by its webhooks, its donor's requests and campaign
 * closures, each in the caller's transaction (which holds the campaign's row lock first).
 */

/** Carries a gift's change to the processor after commit (the request also tries at once). */
export const SYNC_QUEUE = 'recurring-gifts.sync';
const SAFETY_NET_DELAY_MS = 15_000;

/** `now`: nobody calls the processor right after this commit (a subscriber, a webhook), so the job is the call. */
export async function queueSync(trx: Knex.Transaction, giftId: string, now = false): Promise<void> {
  const runAt = new Date(Date.now() + (now ? 0 : SAFETY_NET_DELAY_MS));
  await enqueue(trx, SYNC_QUEUE, { recurring_gift_id: giftId }, { runAt, singletonKey: giftId, maxAttempts: 12 });
}

/** recurring_donor_count of the campaign, recomputed from its gifts. */
export async function refreshDonorCount(trx: Knex.Transaction, fundraiserId: string): Promise<void> {
  await setRecurringDonorCount(trx, fundraiserId, await rrepo.liveDonorCount(trx, fundraiserId));
}

async function holderOf(trx: Knex.Transaction, fundraiserId: string): Promise<{ user: string; org: string | null }> {
  const f = await findFundraiser(trx, fundraiserId);
  if (!f) throw new Error(`fundraiser ${fundraiserId} not found`);
  const org = f.org_id ?? null;
  return { user: (org && (await organizationHolderUserId(trx, org))) || f.owner_user_id, org };
}

/**
 * The first payment settled: counted, announced (holder notification, outbound webhook). The
 * event's id derives from the invoice that started the gift, so a replay after a restore sends it
 * with the id receivers already had.
 */
export async function giftStarted(trx: Knex.Transaction, g: RecurringGiftRow, invoiceId: string): Promise<void> {
  await refreshDonorCount(trx, g.fundraiser_id);
  const holder = await holderOf(trx, g.fundraiser_id);
  await emit(trx, 'recurring_gift.started', {
    recurring_gift_id: g.id,
    fundraiser_id: g.fundraiser_id,
    holder_user_id: holder.user,
    holder_org_id: holder.org,
    donor_name: g.anonymous ? null : g.donor_name,
    anonymous: g.anonymous,
    amount_cents: g.amount_cents,
    tip_cents: g.tip_cents,
    currency: g.currency,
    started_at: new Date(g.started_at ?? Date.now()).toISOString(),
  }, { causedBy: invoiceId });
}

/**
 * Cancels a gift here (once; canceled is final). A cancel the processor did not start is
 * carried to it after commit (`sync`); `recurring_gift.canceled` is emitted only for a gift that
 * had started (a checkout never paid ends quietly).
 */
export async function giftCanceled(
  trx: Knex.Transaction,
  g: RecurringGiftRow,
  c: { by: CanceledBy; reason: string | null; at?: Date | null; syncNow?: boolean },
): Promise<RecurringGiftRow> {
  if (g.status === 'canceled') return g;
  const patch = { status: 'canceled', canceled_at: c.at ?? trx.fn.now(), canceled_by: c.by, cancel_reason: c.reason, next_payment_at: null };
  const sync = c.by !== 'processor' && c.by !== 'checkout';
  const next = sync ? await rrepo.updateForSync(trx, g.id, patch) : await rrepo.update(trx, g.id, patch);
  if (sync && next.processor_subscription_id) await queueSync(trx, g.id, c.syncNow);
  await refreshDonorCount(trx, g.fundraiser_id);
  if (g.started_at) {
    await emit(trx, 'recurring_gift.canceled', {
      recurring_gift_id: g.id,
      fundraiser_id: g.fundraiser_id,
      canceled_by: c.by,
      reason: c.reason,
      canceled_at: new Date(next.canceled_at ?? Date.now()).toISOString(),
    });
  }
  return next;
}
