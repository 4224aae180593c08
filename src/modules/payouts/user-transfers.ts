import type { Knex } from 'knex';
import { accounts, post, type LedgerKind } from '../ledger';
import * as calls from './processor-calls.repo';
import type { CallRow } from './processor-calls.repo';
import * as repo from './payouts.repo';

/** What a user transfer moved: the transfer, the account it went to, and its ledger group. */
export interface UserTransfer {
  processor_account_id: string;
  processor_transfer_id: string;
  ledger_group_id: string;
}

/** Writes the owning module's own row for a confirmed user transfer, in the confirm's transaction. */
export type UserTransferRecorder = (trx: Knex.Transaction, call: CallRow, moved: UserTransfer) => Promise<void>;

const recorders = new Map<string, UserTransferRecorder>();

/** A module names what its user transfers are for (`purpose`) and how their confirm records them. */
export function onUserTransferConfirmed(purpose: string, record: UserTransferRecorder): void {
  recorders.set(purpose, record);
}

export interface UserTransferInput {
  user_id: string;
  amount_cents: number;
  currency: string;
  /** The ledger liability the money leaves (a community fund). */
  liability: string;
  /** Names the money (`community:<id>`): payouts of the account split it apart from campaign transfers. */
  bucket: string;
  kind: LedgerKind;
  metadata: Record<string, string>;
  idempotencyKey: string;
  /** The recorder (onUserTransferConfirmed) the confirm runs, and what it needs. */
  purpose: string;
  record: Record<string, unknown>;
}

/**
 * Claims a transfer of money the platform owes a user on a ledger liability other than a
 * campaign's (a community fund) to the user's active connected account, in the caller's short
 * transaction (which then holds the account row's lock): a pending call with its idempotency key.
 * settle.ts calls the processor after the commit and confirms. Answers null, having done nothing,
 * when the user has no active account; an earlier claim with the same key when there is one.
 * The caller has checked that the liability covers the amount, net of `pendingOutOf` it.
 */
export async function claimUserTransfer(trx: Knex.Transaction, input: UserTransferInput): Promise<CallRow | null> {
  const [row] = await repo.accountsOf(trx, 'user', input.user_id);
  const account = row ? await repo.accountById(trx, row.id, { lock: true }) : undefined;
  if (!account || account.status !== 'active') return null;
  return calls.insertCall(trx, {
    kind: 'user_transfer',
    idempotency_key: input.idempotencyKey,
    processor_account_id: account.id,
    amount_cents: input.amount_cents,
    currency: input.currency.toLowerCase(),
    metadata: input.metadata,
    details: { liability: input.liability, bucket: input.bucket, ledger_kind: input.kind, purpose: input.purpose, record: input.record },
  });
}

/**
 * Confirms a user transfer the processor made: one balanced group (the liability and the
 * platform balance down, the connected asset and its payable up), its `connected_credits` row
 * and the owning module's record, in the caller's transaction (account row locked, claim pending).
 */
export async function confirmUserTransfer(trx: Knex.Transaction, call: CallRow, processorTransferId: string): Promise<UserTransfer> {
  const record = recorders.get(String(call.details.purpose));
  if (!record) throw new Error(`no recorder for user transfers of purpose ${call.details.purpose}`);
  const acct = call.processor_account_id;
  const common = { currency: call.currency, kind: call.details.ledger_kind as LedgerKind, processor_account_id: acct };
  const group = await post(
    trx,
    [
      { ...common, account: String(call.details.liability), amount_cents: call.amount_cents },
      { ...common, account: accounts.processorBalance, amount_cents: -call.amount_cents },
      { ...common, account: accounts.connected(acct), amount_cents: call.amount_cents },
      { ...common, account: accounts.connectedPayable(acct), amount_cents: -call.amount_cents },
    ],
    { sourceEventId: `transfer:${processorTransferId}`, processor: { ref: processorTransferId, move: 'transfer' } },
  );
  // Recorded under its bucket so later payouts of the account keep it out of campaign withdrawals.
  await repo.insertCredit(trx, { processor_transfer_id: processorTransferId, processor_account_id: acct, bucket: String(call.details.bucket), amount_cents: call.amount_cents, currency: call.currency, ledger_group_id: group });
  const moved = { processor_account_id: acct, processor_transfer_id: processorTransferId, ledger_group_id: group };
  await record(trx, call, moved);
  return moved;
}
