import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { findById } from '../fundraisers';
import { accounts, post } from '../ledger';
import { queueCall } from './calls.queue';
import * as calls from './processor-calls.repo';
import type { CallRow } from './processor-calls.repo';
import { owedForDonation } from './gifts.reads';
import * as repo from './payouts.repo';
import type { AccountRow, OwnerType } from './payouts.repo';

/**
 * Claims the transfer of what a campaign's ledger account still owes its holder for one gift,
 * in the caller's short transaction (which holds the account row's lock, so claims, confirms and
 * reversals of the holder's gifts are serialised): a pending `processor_calls` row with the
 * amount and the gift's idempotency key. Nothing moves yet; settle.ts calls the processor after
 * the commit and confirms. Answers the pending claim (an earlier one when the gift has one), or
 * null when nothing is owed or it was transferred already.
 */
export async function claimGiftTransfer(trx: Knex.Transaction, account: AccountRow, donationId: string): Promise<CallRow | null> {
  if (account.status !== 'active') return null;
  if (await repo.transferForDonation(trx, donationId)) return null;
  const earlier = await calls.giftTransferCall(trx, donationId);
  if (earlier) return earlier.status === 'pending' ? earlier : null;
  const gift = await owedForDonation(trx, donationId);
  if (!gift || gift.owed <= 0) return null;
  return calls.insertCall(trx, {
    kind: 'transfer',
    // Prefixed: the processor's keys are one namespace per platform account, and the gift's own
    // payment may already use its bare id.
    idempotency_key: `transfer:${donationId}`,
    processor_account_id: account.id,
    donation_id: donationId,
    fundraiser_id: gift.fundraiser_id,
    amount_cents: gift.owed,
    currency: gift.currency.toLowerCase(),
    metadata: { kind: 'donation', donation_id: donationId },
  });
}

/**
 * Confirms a gift's transfer the processor made: a `transfers` row and a balanced `transfer`
 * group, in the caller's transaction (account row locked, claim pending).
 */
export async function confirmGiftTransfer(trx: Knex.Transaction, call: CallRow, processorTransferId: string): Promise<void> {
  const donationId = call.donation_id!;
  const fundraiserId = call.fundraiser_id!;
  await repo.insertTransfer(trx, {
    processor_transfer_id: processorTransferId,
    processor_account_id: call.processor_account_id,
    fundraiser_id: fundraiserId,
    donation_id: donationId,
    amount_cents: call.amount_cents,
    currency: call.currency,
  });
  const common = { currency: call.currency, kind: 'transfer' as const, fundraiser_id: fundraiserId, donation_id: donationId, processor_account_id: call.processor_account_id };
  await post(
    trx,
    [
      { ...common, account: accounts.campaign(fundraiserId), amount_cents: call.amount_cents },
      { ...common, account: accounts.processorBalance, amount_cents: -call.amount_cents },
      { ...common, account: accounts.connected(call.processor_account_id), amount_cents: call.amount_cents },
      { ...common, account: accounts.connectedPayable(call.processor_account_id), amount_cents: -call.amount_cents },
    ],
    { sourceEventId: `transfer:${processorTransferId}`, processor: { ref: processorTransferId, move: 'transfer' } },
  );
}

/** The holder's active account, locked for the transaction. */
async function activeAccountOf(trx: Knex.Transaction, holder: { type: OwnerType; id: string }): Promise<AccountRow | undefined> {
  const [row] = await repo.accountsOf(trx, holder.type, holder.id);
  if (!row) return undefined;
  const locked = await repo.accountById(trx, row.id, { lock: true });
  return locked?.status === 'active' ? locked : undefined;
}

/**
 * donation.paid: claim the transfer of the gift's net share at once when the holder's account is
 * active (else the sweep does it later); its job calls the processor after this commits. An
 * organization's campaign pays the organization's account.
 */
export async function transferOnPaid(
  _ctx: AppContext,
  trx: Knex.Transaction,
  p: { donation_id: string; fundraiser_id: string; holder_user_id: string; holder_org_id?: string | null },
): Promise<void> {
  // Events queued before the payload named the organization: the campaign row still does.
  const orgId = p.holder_org_id !== undefined ? p.holder_org_id : ((await findById(trx, p.fundraiser_id))?.org_id ?? null);
  const account = await activeAccountOf(trx, orgId ? { type: 'organization', id: orgId } : { type: 'user', id: p.holder_user_id });
  if (account) await queueCall(trx, await claimGiftTransfer(trx, account, p.donation_id));
}
