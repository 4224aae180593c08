import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { findById } from '../fundraisers';
import { accounts, post } from '../ledger';
import { queueCall } from './calls.queue';
import * as calls from './processor-calls.repo';
import type { CallRow } from './processor-calls.repo';
import { reversalFacts } from './gifts.reads';
import * as repo from './payouts.repo';

/**
 * Claims taking back what a transferred gift's campaign account now says the holder owes
 * (separate charges and transfers: the platform does not pay a refund out of its own balance).
 * The amount follows from the ledger, not the event: the gift's campaign balance when positive
 * (taken back after the transfer, net of the platform fee returned), at most what of the transfer
 * is not reversed yet. So a redelivered, late or second event reverses only what is still due.
 * A gift whose transfer is not confirmed yet, or whose transfer has a reversal in flight, needs
 * nothing now: that confirm claims what is due then. A won dispute is not reversed back (the
 * money stays with the platform; the gift's campaign balance shows it as owed to the holder).
 * The caller's transaction holds the account row's lock. Answers the pending claim, or null.
 */
export async function claimReversal(trx: Knex.Transaction, donationId: string): Promise<CallRow | null> {
  const tr = await repo.transferForDonation(trx, donationId);
  if (!tr) return null;
  if (await calls.pendingReversalOf(trx, tr.id)) return null;
  const facts = await reversalFacts(trx, tr.id);
  const cents = Math.min(facts.owedBack, facts.reversible);
  if (cents <= 0) return null;
  const reversed = Number(tr.amount_cents) - facts.reversible;
  const call = await calls.insertCall(trx, {
    kind: 'transfer_reversal',
    // Per cumulative amount taken back (and, after the first, reversed): deterministic, so every
    // re-call of this claim gets the same reversal back, and distinct for each later one.
    idempotency_key: `transfer-reversal:${donationId}:${facts.takenBack}${reversed > 0 ? `:${reversed}` : ''}`,
    processor_account_id: tr.processor_account_id,
    donation_id: donationId,
    fundraiser_id: tr.fundraiser_id,
    transfer_id: tr.id,
    amount_cents: cents,
    currency: tr.currency,
    metadata: { kind: 'donation', donation_id: donationId },
    details: { processor_transfer_id: tr.processor_transfer_id },
  });
  return call.status === 'pending' ? call : null;
}

/**
 * donation.refunded / donation.disputed: claims the reversal (its job calls the processor after
 * this commits). Answers the cents claimed.
 */
export async function reverseForGift(_ctx: AppContext, trx: Knex.Transaction, p: { donation_id: string; fundraiser_id: string }): Promise<number> {
  // The holder's account row first: claims and confirms of the holder's transfers hold it, so
  // this sees a transfer either confirmed or still pending (whose confirm then claims this).
  const f = await findById(trx, p.fundraiser_id);
  if (f) {
    const [acct] = f.org_id ? await repo.accountsOf(trx, 'organization', f.org_id) : await repo.accountsOf(trx, 'user', f.owner_user_id);
    if (acct) await repo.accountById(trx, acct.id, { lock: true });
  }
  const tr = await repo.transferForDonation(trx, p.donation_id);
  if (tr) await repo.accountById(trx, tr.processor_account_id, { lock: true });
  const call = await claimReversal(trx, p.donation_id);
  await queueCall(trx, call);
  return call?.amount_cents ?? 0;
}

/**
 * Confirms a reversal the processor made: its balanced group and `transfer_reversals` row, in
 * the caller's transaction (account row locked, claim pending).
 */
export async function confirmReversal(trx: Knex.Transaction, call: CallRow, processorReversalId: string): Promise<void> {
  const acct = call.processor_account_id;
  const fundraiserId = call.fundraiser_id!;
  const common = { currency: call.currency, kind: 'transfer_reversal' as const, fundraiser_id: fundraiserId, donation_id: call.donation_id, processor_account_id: acct };
  const group = await post(
    trx,
    [
      { ...common, account: accounts.connected(acct), amount_cents: -call.amount_cents },
      { ...common, account: accounts.connectedPayable(acct), amount_cents: call.amount_cents },
      { ...common, account: accounts.campaign(fundraiserId), amount_cents: -call.amount_cents },
      { ...common, account: accounts.processorBalance, amount_cents: call.amount_cents },
    ],
    { sourceEventId: `transfer-reversal:${processorReversalId}`, processor: { ref: processorReversalId, move: 'transfer_reversal' } },
  );
  await repo.insertReversal(trx, {
    transfer_id: call.transfer_id!,
    processor_reversal_id: processorReversalId,
    processor_account_id: acct,
    fundraiser_id: fundraiserId,
    donation_id: call.donation_id,
    amount_cents: call.amount_cents,
    currency: call.currency,
    ledger_group_id: group,
  });
}
