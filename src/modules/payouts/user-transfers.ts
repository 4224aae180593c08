import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { accounts, post, type LedgerKind } from '../ledger';
import * as repo from './payouts.repo';

/** What `transferToUser` moved: the transfer, the account it went to, and its ledger group. */
export interface UserTransfer {
  processor_account_id: string;
  processor_transfer_id: string;
  ledger_group_id: string;
}

/**
 * Moves money the platform owes a user on a ledger liability other than a campaign's (a
 * community fund) to the user's active connected account: a processor transfer keyed by
 * `idempotencyKey`, and one balanced group (the liability and the platform balance down, the
 * connected asset and its payable up), in the caller's transaction, which then holds the
 * account row's lock. Answers null, having done nothing, when the user has no active account.
 * The caller has checked that the liability covers the amount. `bucket` names the money
 * (`community:<id>`): payouts of the account split it apart from campaign transfers.
 */
export async function transferToUser(
  ctx: AppContext,
  trx: Knex.Transaction,
  input: { user_id: string; amount_cents: number; currency: string; liability: string; bucket: string; kind: LedgerKind; metadata: Record<string, string>; idempotencyKey: string },
): Promise<UserTransfer | null> {
  const [row] = await repo.accountsOf(trx, 'user', input.user_id);
  const account = row ? await repo.accountById(trx, row.id, { lock: true }) : undefined;
  if (!account || account.status !== 'active') return null;
  const currency = input.currency.toLowerCase();
  const tr = await ctx.payments.createTransfer({
    amount_cents: input.amount_cents,
    currency,
    destination: account.id,
    metadata: input.metadata,
    idempotencyKey: input.idempotencyKey,
  });
  const common = { currency, kind: input.kind, processor_account_id: account.id };
  const group = await post(
    trx,
    [
      { ...common, account: input.liability, amount_cents: input.amount_cents },
      { ...common, account: accounts.processorBalance, amount_cents: -input.amount_cents },
      { ...common, account: accounts.connected(account.id), amount_cents: input.amount_cents },
      { ...common, account: accounts.connectedPayable(account.id), amount_cents: -input.amount_cents },
    ],
    { sourceEventId: `transfer:${tr.id}` },
  );
  // Recorded under its bucket so later payouts of the account keep it out of campaign withdrawals.
  await repo.insertCredit(trx, { processor_transfer_id: tr.id, processor_account_id: account.id, bucket: input.bucket, amount_cents: input.amount_cents, currency, ledger_group_id: group });
  return { processor_account_id: account.id, processor_transfer_id: tr.id, ledger_group_id: group };
}
