import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { emit } from '../../events';
import type { ProcessorPayout } from '../../integrations/payments';
import { accounts, post } from '../ledger';
import { organizationHolderUserId } from '../organizations';
import * as repo from './payouts.repo';
import { settlePending } from './settle';
import type { AccountRow, PayoutRow, PayoutStatus } from './payouts.repo';
import { splitProportionally } from './split';

/** A payout as the processor describes it (webhook object or list item), amounts in cents. */
export type PayoutFacts = ProcessorPayout;

export interface Repaired {
  payouts: number;
  donations: number;
  ledger_entries: number;
}

const statusOf = (s: ProcessorPayout['status']): PayoutStatus => (s === 'canceled' ? 'failed' : s);

/** YYYY-MM-DD from the port's date, or from unix seconds as Stripe objects (and the sandbox's list) carry it. */
export function arrivalDate(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v * 1000).toISOString().slice(0, 10);
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) return v.slice(0, 10);
  return null;
}

/** A ledger group moving `cents` out of (sign 1) or back into (sign -1) the connected account. */
async function postPayoutGroup(trx: Knex.Transaction, account: AccountRow, p: PayoutRow, sign: 1 | -1, sourceEventId: string | null) {
  const common = { currency: p.currency, kind: sign === 1 ? ('payout' as const) : ('payout_reversal' as const), processor_account_id: account.id };
  return post(
    trx,
    [
      { ...common, account: accounts.connected(account.id), amount_cents: -sign * p.amount_cents },
      { ...common, account: accounts.connectedPayable(account.id), amount_cents: sign * p.amount_cents },
    ],
    { sourceEventId, processor: { ref: p.processor_payout_id, move: 'payout' } },
  );
}

type SplitKey = { fundraiser_id: string } | { bucket: string };

/**
 * The payout's split across the holder's campaigns and the account's other buckets (community
 * funds withdrawn to it), in proportion to what each had moved to the account and not yet paid
 * out; the parts sum exactly to the payout. Only campaign parts are withdrawals (the campaign
 * feed and earnings); a bucket's part is recorded apart.
 */
async function writeWithdrawals(trx: Knex.Transaction, account: AccountRow, p: PayoutRow): Promise<void> {
  const parts: Array<{ key: SplitKey; weight: number }> = [
    ...(await repo.unwithdrawnByCampaign(trx, account.id)).map((c) => ({ key: { fundraiser_id: c.fundraiser_id }, weight: c.cents })),
    ...(await repo.unpaidByBucket(trx, account.id)).map((b) => ({ key: { bucket: b.bucket }, weight: b.cents })),
  ];
  const split = splitProportionally(p.amount_cents, parts).filter((s) => s.cents > 0);
  const common = { payout_id: p.id, currency: p.currency, status: 'paid' as const, arrival_date: p.arrival_date };
  await repo.insertWithdrawals(trx, split.flatMap((s) => ('fundraiser_id' in s.key ? [{ ...common, fundraiser_id: s.key.fundraiser_id, amount_cents: s.cents }] : [])));
  await repo.insertBucketParts(trx, split.flatMap((s) => ('bucket' in s.key ? [{ ...common, bucket: s.key.bucket, amount_cents: s.cents }] : [])));
}

/** What payout.paid and payout.failed say; an organization's payout is announced to the person who stands for it (its first owner). */
async function payoutEvent(trx: Knex.Transaction, account: AccountRow, p: PayoutRow, currency: string) {
  return {
    payout_id: p.id,
    processor_account_id: account.id,
    holder_user_id: account.owner_type === 'user' ? account.owner_id : await organizationHolderUserId(trx, account.owner_id),
    amount_cents: p.amount_cents,
    currency,
  };
}

/**
 * Brings one payout row to the processor's state, in the caller's transaction: the row, and once
 * paid, its ledger group, its withdrawal split, the links to the transfers it paid out and the
 * `payout.paid` event; paid then failed posts the reversal. Each step happens once, so a webhook
 * and a refresh (or a duplicate) never double anything. A failed payout stays failed.
 */
export async function applyPayout(trx: Knex.Transaction, account: AccountRow, facts: PayoutFacts, sourceEventId: string | null): Promise<Repaired> {
  const out: Repaired = { payouts: 0, donations: 0, ledger_entries: 0 };
  const status = statusOf(facts.status);
  const currency = facts.currency.toLowerCase();
  facts = { ...facts, arrival_date: arrivalDate(facts.arrival_date) };
  const { row, inserted } = await repo.upsertPayout(trx, {
    processor_payout_id: facts.id,
    processor_account_id: account.id,
    amount_cents: facts.amount_cents,
    currency,
    status,
    arrival_date: facts.arrival_date,
  });
  if (inserted) out.payouts += 1;
  // Stripe never moves a failed payout on; a late `paid` is older news.
  if (row.status === 'failed' && status !== 'failed') return out;
  // paid -> in_transit would be an older state arriving late; paid stays paid until it fails.
  if (row.status === 'paid' && status !== 'paid' && status !== 'failed') return out;

  if (!inserted && (row.status !== status || row.arrival_date !== facts.arrival_date)) {
    await repo.updatePayout(trx, row.id, { status, arrival_date: facts.arrival_date });
    out.payouts += 1;
  }
  const p: PayoutRow = { ...row, status, arrival_date: facts.arrival_date };

  if (status === 'paid') {
    if (!p.paid_group_id) {
      const group = await postPayoutGroup(trx, account, p, 1, sourceEventId);
      await repo.updatePayout(trx, p.id, { paid_group_id: group });
      out.ledger_entries += 2;
      await emit(trx, 'payout.paid', await payoutEvent(trx, account, p, currency), { causedBy: facts.id });
    }
    if (!(await repo.hasWithdrawals(trx, p.id))) await writeWithdrawals(trx, account, p);
    else await repo.setWithdrawalsStatus(trx, p.id, 'paid', p.arrival_date);
    // Campaign transfers are linked against the campaigns' share only, not the community money.
    out.donations += await repo.linkTransfers(trx, account.id, p.id, await repo.campaignShareOf(trx, p.id));
  } else if (status === 'failed') {
    if (p.paid_group_id && !p.reversal_group_id) {
      const group = await postPayoutGroup(trx, account, p, -1, sourceEventId);
      await repo.updatePayout(trx, p.id, { reversal_group_id: group });
      out.ledger_entries += 2;
    }
    await repo.setWithdrawalsStatus(trx, p.id, 'failed');
    await repo.unlinkTransfers(trx, p.id);
    // Announced once: when the payout is first seen failed, not on a repeated failed event.
    if (inserted || row.status !== 'failed') {
      await emit(trx, 'payout.failed', await payoutEvent(trx, account, p, currency), { causedBy: facts.id });
    }
  }
  return out;
}

/**
 * Repairs the account from the processor: first its claimed transfers and reversals still
 * pending (a crash or a processor error between call and confirm), re-called with their own
 * idempotency keys so the processor answers what it already did; then its payouts from the
 * processor's list: missing or stale rows, their transfer links and missing ledger groups.
 * Decides no new money movement. Oldest first, so older payouts link older transfers.
 */
export async function refreshAccount(ctx: AppContext, account: AccountRow): Promise<Repaired> {
  const settled = await settlePending(ctx, account.id);
  const list = await ctx.payments.listPayouts(account.id, 100);
  return ctx.db.transaction(async (trx) => {
    const locked = (await repo.accountById(trx, account.id, { lock: true }))!;
    const total: Repaired = { payouts: 0, donations: 0, ledger_entries: settled.ledger_entries };
    for (const facts of [...list].reverse()) {
      const r = await applyPayout(trx, locked, facts, null);
      total.payouts += r.payouts;
      total.donations += r.donations;
      total.ledger_entries += r.ledger_entries;
    }
    return total;
  });
}
