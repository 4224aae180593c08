import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { enqueue } from '../../infra/jobs';
import { findById } from '../fundraisers';
import { accounts, post } from '../ledger';
import { SWEEP_QUEUE } from './accounts.service';
import * as repo from './payouts.repo';
import type { AccountRow, OwnerType } from './payouts.repo';

/** Gifts one sweep job transfers; more are left to a follow-up job, so one transaction stays short. */
const SWEEP_BATCH = 100;

/**
 * Moves what a campaign's ledger account still owes its holder for one gift to the holder's
 * connected account: a processor transfer (the gift id keys its idempotency, so a retry after a
 * rollback gets the same transfer back), a `transfers` row and a balanced `transfer` group, in
 * the caller's transaction. The caller holds the account row's lock, which serialises the
 * donation.paid subscriber and the sweep. Answers whether money moved.
 */
export async function transferGift(ctx: AppContext, trx: Knex.Transaction, account: AccountRow, donationId: string): Promise<boolean> {
  if (account.status !== 'active') return false;
  if (await repo.transferForDonation(trx, donationId)) return false;
  const gift = await repo.owedForDonation(trx, donationId);
  if (!gift || gift.owed <= 0) return false;
  const currency = gift.currency.toLowerCase();
  const tr = await ctx.payments.createTransfer({
    amount_cents: gift.owed,
    currency,
    destination: account.id,
    metadata: { kind: 'donation', donation_id: donationId },
    // Prefixed: the processor's keys are one namespace per platform account, and the gift's own
    // payment may already use its bare id.
    idempotencyKey: `transfer:${donationId}`,
  });
  await repo.insertTransfer(trx, {
    processor_transfer_id: tr.id,
    processor_account_id: account.id,
    fundraiser_id: gift.fundraiser_id,
    donation_id: donationId,
    amount_cents: gift.owed,
    currency,
  });
  const common = { currency, kind: 'transfer' as const, fundraiser_id: gift.fundraiser_id, donation_id: donationId, processor_account_id: account.id };
  await post(
    trx,
    [
      { ...common, account: accounts.campaign(gift.fundraiser_id), amount_cents: gift.owed },
      { ...common, account: accounts.processorBalance, amount_cents: -gift.owed },
      { ...common, account: accounts.connected(account.id), amount_cents: gift.owed },
      { ...common, account: accounts.connectedPayable(account.id), amount_cents: -gift.owed },
    ],
    { sourceEventId: `transfer:${tr.id}` },
  );
  return true;
}

/** The holder's active account, locked for the transaction. */
async function activeAccountOf(trx: Knex.Transaction, holder: { type: OwnerType; id: string }): Promise<AccountRow | undefined> {
  const [row] = await repo.accountsOf(trx, holder.type, holder.id);
  if (!row) return undefined;
  const locked = await repo.accountById(trx, row.id, { lock: true });
  return locked?.status === 'active' ? locked : undefined;
}

/**
 * donation.paid: transfer the gift's net share at once when the holder's account is active
 * (else the sweep does it later). An organization's campaign pays the organization's account.
 */
export async function transferOnPaid(
  ctx: AppContext,
  trx: Knex.Transaction,
  p: { donation_id: string; fundraiser_id: string; holder_user_id: string; holder_org_id?: string | null },
): Promise<void> {
  // Events queued before the payload named the organization: the campaign row still does.
  const orgId = p.holder_org_id !== undefined ? p.holder_org_id : ((await findById(trx, p.fundraiser_id))?.org_id ?? null);
  const account = await activeAccountOf(trx, orgId ? { type: 'organization', id: orgId } : { type: 'user', id: p.holder_user_id });
  if (account) await transferGift(ctx, trx, account, p.donation_id);
}

/** The sweep: every settled gift of the holder's campaigns not transferred yet, in batches. */
export async function sweepAccount(ctx: AppContext, trx: Knex.Transaction, accountId: string): Promise<number> {
  const account = await repo.accountById(trx, accountId, { lock: true });
  if (!account || account.status !== 'active') return 0;
  const gifts = await repo.untransferredGifts(trx, { type: account.owner_type, id: account.owner_id }, SWEEP_BATCH);
  let moved = 0;
  for (const id of gifts) if (await transferGift(ctx, trx, account, id)) moved += 1;
  // A full batch may leave more behind; a batch that moved nothing (campaigns already square) ends the sweep.
  if (gifts.length === SWEEP_BATCH && moved > 0) await enqueue(trx, SWEEP_QUEUE, { account_id: account.id });
  return moved;
}
