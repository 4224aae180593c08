import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { emit } from '../../events';
import { adjustCounters, goalAwaitsStamp, goalReachedSince } from '../fundraisers';
import { accounts, post, type LedgerEntry, type LedgerKind } from '../ledger';
import { organizationHolderUserId } from '../organizations';
import { cleanFee } from '../webhooks';
import * as repo from './donations.repo';
import type { DonationRow } from './donations.repo';

/** What a processor object says about a payment, checked against the gift before it settles. */
export interface PaymentFacts {
  amount: number;
  currency: string;
  paymentIntentId: string | null;
  chargeId: string | null;
  /** The processor's fee, fetched before the transaction (0 when unknown). */
  fee: number;
}

export type Outcome = 'applied' | 'ignored';

/** The platform's fee on the campaign's part of a gift (PLATFORM_FEE_BPS), rounded down to the cent. */
export function platformFee(ctx: AppContext, amountCents: number): number {
  return Math.floor((amountCents * (ctx.config.PLATFORM_FEE_BPS ?? 0)) / 10_000);
}

/**
 * How `x` cents taken back from a charge (refunds plus open or lost disputes) fall: on the
 * campaign's part first, then the tip, and anything beyond both (a refund after a lost
 * dispute) is a loss. Order-independent, so any delivery order ends in the same split.
 */
export function takenBack(d: Pick<DonationRow, 'amount_cents' | 'tip_cents' | 'platform_fee_cents'>, x: number) {
  const campaign = Math.min(d.amount_cents, x);
  const tip = Math.min(d.tip_cents, Math.max(0, x - d.amount_cents));
  const loss = Math.max(0, x - d.amount_cents - d.tip_cents);
  // The platform's fee goes back with the campaign's part, in proportion.
  const platformFee = d.amount_cents > 0 ? Math.floor((d.platform_fee_cents * campaign) / d.amount_cents) : 0;
  return { campaign, tip, loss, platformFee };
}

const sameCurrency = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * pending (or failed: a later success settles it) -> paid, once: the ledger group, the counters, and the events, all in `trx` (which
 * holds the campaign row's lock, see donations.webhooks.ts). The
 * conditional update decides (a second event for the same payment changes nothing); an
 * amount or currency that differs from the gift settles nothing and is logged.
 */
export async function settle(ctx: AppContext, trx: Knex.Transaction, d: DonationRow, f: PaymentFacts, eventId: string): Promise<Outcome> {
  if (d.status !== 'pending' && d.status !== 'failed') return 'ignored';
  const gross = d.amount_cents + d.tip_cents;
  if (f.amount !== gross || !sameCurrency(f.currency, d.currency)) {
    ctx.log.warn({ donationId: d.id, eventId, expected: { amount: gross, currency: d.currency }, got: { amount: f.amount, currency: f.currency } }, 'processor amount or currency differs from the donation; not settled');
    return 'ignored';
  }
  const fee = cleanFee(f.fee, f.amount);
  const pfee = platformFee(ctx, d.amount_cents);
  const paid = await repo.markPaid(trx, d.id, { pi: f.paymentIntentId, charge: f.chargeId, fee, platformFee: pfee });
  if (!paid) return 'ignored';

  const on = { currency: d.currency, fundraiser_id: d.fundraiser_id, donation_id: d.id };
  const campaign = accounts.campaign(d.fundraiser_id);
  const entries: LedgerEntry[] = [
    { ...on, account: accounts.processorBalance, amount_cents: d.amount_cents, kind: 'donation' },
    { ...on, account: campaign, amount_cents: -d.amount_cents, kind: 'donation' },
    { ...on, account: accounts.processorBalance, amount_cents: d.tip_cents, kind: 'tip' },
    { ...on, account: accounts.tips, amount_cents: -d.tip_cents, kind: 'tip' },
    // The processor keeps its fee out of the charge; the campaign's share bears it.
    { ...on, account: campaign, amount_cents: fee, kind: 'processor_fee' },
    { ...on, account: accounts.processorBalance, amount_cents: -fee, kind: 'processor_fee' },
    { ...on, account: campaign, amount_cents: pfee, kind: 'platform_fee' },
    { ...on, account: accounts.platformFees, amount_cents: -pfee, kind: 'platform_fee' },
  ];
  await post(trx, entries, { sourceEventId: eventId, processor: { ref: f.paymentIntentId ?? d.processor_payment_intent_id, move: 'charge' } });

  const donorDelta = await repo.bumpDonor(trx, d.fundraiser_id, repo.donorKey(paid), 1);
  // No lock on the campaign: the counters go to a shard row (fundraisers/counters.ts).
  const c = await adjustCounters(trx, d.fundraiser_id, { raised_cents: d.amount_cents, tips_cents: d.tip_cents, donation_count: 1, donor_count: donorDelta });
  // An organization's campaign is held by the organization: its owner stands for it.
  const holder = (c.org_id && (await organizationHolderUserId(trx, c.org_id))) || c.owner_user_id;
  // The PaymentIntent succeeds once, whichever of its events (or a recheck) settles the gift: the
  // events it causes keep their ids when a restored database is given the same facts again.
  const causedBy = f.paymentIntentId ?? d.processor_payment_intent_id ?? eventId;
  await emit(trx, 'donation.paid', {
    donation_id: d.id,
    fundraiser_id: d.fundraiser_id,
    holder_user_id: holder,
    holder_org_id: c.org_id,
    donor_user_id: d.donor_user_id,
    donor_email: d.donor_email,
    donor_name: d.donor_name,
    anonymous: d.anonymous,
    amount_cents: d.amount_cents,
    tip_cents: d.tip_cents,
    currency: d.currency,
    receipt_id: d.receipt_id,
    referral_code: d.referral_code ?? null,
    message: paid.message ?? null,
    paid_at: new Date(paid.paid_at!).toISOString(),
  }, { causedBy });
  if (c.goal_reached_now) await emit(trx, 'fundraiser.goal_reached', { fundraiser_id: d.fundraiser_id, holder_user_id: holder }, { causedBy: goalFact(d.fundraiser_id) });
  if (c.below_goal) recheckGoalOnCommit(ctx, trx, d.fundraiser_id);
  return 'applied';
}

/** A campaign reaches its goal once: the event's id derives from the campaign, whichever gift (or recheck) stamps it. */
const goalFact = (fundraiserId: string) => `goal_reached:${fundraiserId}`;

/**
 * Gifts settling side by side may reach the goal together with none of them seeing the total
 * (counters.ts): once this one is committed, the committed total is tested again, in a
 * transaction of its own that stamps the goal (once) and queues its event. A crash in between
 * leaves it to the next gift of the campaign, which tests the committed total too.
 */
function recheckGoalOnCommit(ctx: AppContext, trx: Knex.Transaction, fundraiserId: string): void {
  const recheck = async () => {
    if (!(await goalAwaitsStamp(ctx.db, fundraiserId))) return;
    await ctx.db.transaction(async (t) => {
      const c = await goalReachedSince(t, fundraiserId);
      if (!c) return;
      const holder = (c.org_id && (await organizationHolderUserId(t, c.org_id))) || c.owner_user_id;
      await emit(t, 'fundraiser.goal_reached', { fundraiser_id: fundraiserId, holder_user_id: holder }, { causedBy: goalFact(fundraiserId) });
    });
  };
  trx.executionPromise.then(recheck, () => undefined).catch((err: unknown) => ctx.log.error({ err, fundraiserId }, 'goal recheck after a settlement failed'));
}

/**
 * Moves what has been taken back from a settled gift to `next` (cumulative refunds and
 * disputes, as the processor reports them): one balanced group for the difference, the
 * counters, and `refunded` once the campaign's whole part is refunded. Amounts that do not
 * grow (an older refund event arriving late) change nothing.
 */
export async function takeBack(
  ctx: AppContext,
  trx: Knex.Transaction,
  d: DonationRow,
  next: { refunded: number; disputed: number; disputeStatus: DonationRow['dispute_status']; chargeId: string | null },
  kind: Extract<LedgerKind, 'refund' | 'dispute' | 'dispute_reversal'>,
  eventId: string,
): Promise<Outcome> {
  const before = takenBack(d, d.refunded_cents + d.disputed_cents);
  const after = takenBack(d, next.refunded + next.disputed);
  const delta = next.refunded + next.disputed - (d.refunded_cents + d.disputed_cents);
  const becomesRefunded = d.status === 'paid' && next.refunded >= d.amount_cents;
  const dc = after.campaign - before.campaign;
  const dt = after.tip - before.tip;
  const dl = after.loss - before.loss;
  const dp = after.platformFee - before.platformFee;
  if (delta !== 0) {
    const on = { currency: d.currency, fundraiser_id: d.fundraiser_id, donation_id: d.id };
    const campaign = accounts.campaign(d.fundraiser_id);
    await post(
      trx,
      [
        { ...on, account: campaign, amount_cents: dc, kind },
        { ...on, account: accounts.tips, amount_cents: dt, kind },
        { ...on, account: accounts.losses, amount_cents: dl, kind },
        { ...on, account: accounts.processorBalance, amount_cents: -delta, kind },
        { ...on, account: accounts.platformFees, amount_cents: dp, kind: 'platform_fee' },
        { ...on, account: campaign, amount_cents: -dp, kind: 'platform_fee' },
      ],
      { sourceEventId: eventId, processor: { ref: d.processor_payment_intent_id, move: kind === 'refund' ? 'refund' : 'dispute' } },
    );
  }
  await repo.updateReduction(trx, d.id, {
    refunded_cents: next.refunded,
    disputed_cents: next.disputed,
    dispute_status: next.disputeStatus,
    refunded: becomesRefunded,
    charge: next.chargeId,
  });
  const donorDelta = becomesRefunded ? await repo.bumpDonor(trx, d.fundraiser_id, repo.donorKey(d), -1) : 0;
  if (dc !== 0 || dt !== 0 || becomesRefunded) {
    await adjustCounters(trx, d.fundraiser_id, {
      raised_cents: -dc,
      tips_cents: -dt,
      donation_count: becomesRefunded ? -1 : 0,
      donor_count: donorDelta,
    });
  }
  if (kind === 'refund' && next.refunded > d.refunded_cents) {
    await emit(trx, 'donation.refunded', {
      donation_id: d.id,
      fundraiser_id: d.fundraiser_id,
      refunded_cents: next.refunded - d.refunded_cents,
      fully: next.refunded >= d.amount_cents + d.tip_cents,
    }, { causedBy: eventId });
  }
  if (kind === 'dispute' && next.disputed > d.disputed_cents) {
    await emit(trx, 'donation.disputed', { donation_id: d.id, fundraiser_id: d.fundraiser_id, disputed_cents: next.disputed });
  }
  return 'applied';
}
