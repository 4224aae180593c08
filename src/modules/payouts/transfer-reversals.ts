import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { findById } from '../fundraisers';
import { accounts, post } from '../ledger';
import * as repo from './payouts.repo';

/**
 * A refund or dispute of a gift already transferred to the holder's connected account: takes
 * the campaign's share of it back from that transfer (separate charges and transfers), so the
 * platform does not pay the refund out of its own balance. The amount follows from the ledger,
 * not the event: the gift's campaign balance when positive (what was taken back after the
 * transfer, net of the platform fee returned), at most what of the transfer is not reversed yet.
 * So a redelivered or late event, or a second one, reverses only what is still due. A gift never
 * transferred needs nothing (the transfer, if it comes later, moves only what is still owed).
 * A won dispute is not reversed back: that money stays with the platform and the gift's campaign
 * balance shows it as owed to the holder. Answers the cents reversed.
 */
export async function reverseForGift(ctx: AppContext, trx: Knex.Transaction, p: { donation_id: string; fundraiser_id: string }): Promise<number> {
  // The holder's account row first: transferGift holds it while it transfers, so a transfer in
  // flight commits before this reads `transfers` (else its money would never come back).
  const f = await findById(trx, p.fundraiser_id);
  if (f) {
    const [acct] = f.org_id ? await repo.accountsOf(trx, 'organization', f.org_id) : await repo.accountsOf(trx, 'user', f.owner_user_id);
    if (acct) await repo.accountById(trx, acct.id, { lock: true });
  }
  const tr = await repo.transferForDonation(trx, p.donation_id);
  if (!tr) return 0;
  await repo.accountById(trx, tr.processor_account_id, { lock: true });
  const facts = await repo.reversalFacts(trx, tr.id);
  const cents = Math.min(facts.owedBack, facts.reversible);
  if (cents <= 0) return 0;
  const rev = await ctx.payments.createTransferReversal({
    transfer_id: tr.processor_transfer_id,
    amount_cents: cents,
    metadata: { kind: 'donation', donation_id: p.donation_id },
    // Per cumulative amount taken back: a retry after a rollback gets the same reversal back.
    idempotencyKey: `transfer-reversal:${p.donation_id}:${facts.takenBack}`,
  });
  const common = { currency: tr.currency, kind: 'transfer_reversal' as const, fundraiser_id: tr.fundraiser_id, donation_id: p.donation_id, processor_account_id: tr.processor_account_id };
  const group = await post(
    trx,
    [
      { ...common, account: accounts.connected(tr.processor_account_id), amount_cents: -cents },
      { ...common, account: accounts.connectedPayable(tr.processor_account_id), amount_cents: cents },
      { ...common, account: accounts.campaign(tr.fundraiser_id), amount_cents: -cents },
      { ...common, account: accounts.processorBalance, amount_cents: cents },
    ],
    { sourceEventId: `transfer-reversal:${rev.id}` },
  );
  await repo.insertReversal(trx, {
    transfer_id: tr.id,
    processor_reversal_id: rev.id,
    processor_account_id: tr.processor_account_id,
    fundraiser_id: tr.fundraiser_id,
    donation_id: p.donation_id,
    amount_cents: cents,
    currency: tr.currency,
    ledger_group_id: group,
  });
  return cents;
}
