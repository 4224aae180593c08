import type { AppContext } from '../../../context';
import { ApiError, notFound } from '../../../http/errors';
import { findById as findFundraiser, lockForCounters } from '../../fundraisers';
import * as rrepo from './recurring.repo';
import type { RecurringGiftRow } from './recurring.repo';
import { giftCanceled, queueSync } from './recurring.changes';
import { tokenNamesGift } from './recurring.tokens';

/** A donor's monthly gifts: reads, changes from the next payment, cancel; and carrying changes to the processor. */

export interface GiftChange {
  amount_cents?: number;
  tip_cents?: number;
  paused?: boolean;
}

/** Who asks: a signed-in donor (their own gifts) or the holder of a gift's signed link. */
export type GiftAccess = { userId: string } | { token: string };

const iso = (v: Date | string | null) => (v ? new Date(v).toISOString() : null);

export async function toPublicGift(ctx: AppContext, g: RecurringGiftRow) {
  const f = await findFundraiser(ctx.db, g.fundraiser_id);
  return {
    id: g.id,
    fundraiser: { id: g.fundraiser_id, title: f?.title ?? '', slug: f?.slug ?? '' },
    amount_cents: g.amount_cents,
    tip_cents: g.tip_cents,
    currency: g.currency,
    interval: 'month' as const,
    // A gift never paid is not listed; a checkout still open reads as active once its first payment lands.
    status: (g.status === 'incomplete' ? 'active' : g.status) as 'active' | 'paused' | 'past_due' | 'canceled',
    next_payment_at: g.status === 'canceled' ? null : iso(g.next_payment_at),
    started_at: iso(g.started_at),
    canceled_at: iso(g.canceled_at),
  };
}

/** The gift `access` may manage; 404 for another donor's, an unknown one, a bad token or one never paid. */
async function accessible(ctx: AppContext, id: string, access: GiftAccess): Promise<RecurringGiftRow> {
  const g = await rrepo.find(ctx.db, id);
  const ok = !!g && !!g.started_at && ('userId' in access ? g.donor_user_id === access.userId : await tokenNamesGift(ctx.db, id, access.token));
  if (!ok) throw notFound('Monthly gift');
  return g!;
}

export async function listForDonor(ctx: AppContext, userId: string) {
  const rows = await rrepo.listStartedForDonor(ctx.db, userId);
  const data = [];
  for (const g of rows) data.push(await toPublicGift(ctx, g));
  return data;
}

export async function readGift(ctx: AppContext, id: string, access: GiftAccess) {
  return toPublicGift(ctx, await accessible(ctx, id, access));
}

const canceledConflict = () => new ApiError(409, 'Conflict', 'This monthly gift has been canceled', { code: 'RECURRING_GIFT_CANCELED' });

/** PATCH: amount, tip and pause take effect from the next payment (nothing already charged changes). */
export async function changeGift(ctx: AppContext, id: string, access: GiftAccess, change: GiftChange) {
  const g0 = await accessible(ctx, id, access);
  const next = await ctx.db.transaction(async (trx) => {
    await lockForCounters(trx, g0.fundraiser_id);
    const g = (await rrepo.find(trx, id, true))!;
    if (g.status === 'canceled') throw canceledConflict();
    const patch: Record<string, unknown> = {};
    if (change.amount_cents !== undefined && change.amount_cents !== g.amount_cents) patch.amount_cents = change.amount_cents;
    if (change.tip_cents !== undefined && change.tip_cents !== g.tip_cents) patch.tip_cents = change.tip_cents;
    if (change.paused === true && g.status !== 'paused') patch.status = 'paused';
    if (change.paused === false && g.status === 'paused') patch.status = 'active';
    if (!Object.keys(patch).length) return g;
    const updated = await rrepo.updateForSync(trx, id, patch);
    if (updated.processor_subscription_id) await queueSync(trx, id);
    return updated;
  });
  await syncNow(ctx, id);
  return toPublicGift(ctx, (await rrepo.find(ctx.db, id)) ?? next);
}

/** DELETE: canceled at once; the processor learns it right after (and by a job if that call fails). */
export async function cancelGift(ctx: AppContext, id: string, access: GiftAccess, reason: string | null) {
  const g0 = await accessible(ctx, id, access);
  await ctx.db.transaction(async (trx) => {
    await lockForCounters(trx, g0.fundraiser_id);
    const g = (await rrepo.find(trx, id, true))!;
    if (g.status === 'canceled') return;
    await giftCanceled(trx, g, { by: 'donor', reason });
  });
  await syncNow(ctx, id);
  return toPublicGift(ctx, (await rrepo.find(ctx.db, id))!);
}

/**
 * Claim, call, confirm: the change is already committed (claim); the processor is called with
 * no transaction open, with an idempotency key per change; the confirmation records the version
 * it holds. A failure is left to the sync job, which calls again with the same key.
 */
export async function syncToProcessor(ctx: AppContext, id: string): Promise<void> {
  const g = await rrepo.find(ctx.db, id);
  if (!g || g.sync_version <= g.synced_version || !g.processor_subscription_id) return;
  if (g.status === 'canceled') {
    await ctx.payments.cancelSubscription({ subscription_id: g.processor_subscription_id, idempotencyKey: `recurring_gift:${g.id}:cancel` });
  } else {
    await ctx.payments.updateSubscription({
      subscription_id: g.processor_subscription_id,
      amount_cents: g.amount_cents + g.tip_cents,
      paused: g.status === 'paused',
      idempotencyKey: `recurring_gift:${g.id}:v${g.sync_version}`,
    });
  }
  await rrepo.markSynced(ctx.db, g.id, g.sync_version);
}

async function syncNow(ctx: AppContext, id: string): Promise<void> {
  try {
    await syncToProcessor(ctx, id);
  } catch (err) {
    ctx.log.warn({ recurringGiftId: id, err: (err as Error).message }, 'monthly gift change not carried to the processor yet; the sync job retries');
  }
}

/** The sync job: one gift (queued with its change), or every gift left unsynced (the repair sweep). */
export async function syncJob(ctx: AppContext, payload: Record<string, unknown>): Promise<void> {
  const ids = typeof payload.recurring_gift_id === 'string' ? [payload.recurring_gift_id] : await rrepo.unsynced(ctx.db);
  for (const id of ids) await syncToProcessor(ctx, id);
}
