import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export type CallKind = 'transfer' | 'transfer_reversal' | 'user_transfer';

/** A claimed processor call (see the processor_calls migration): its exact parameters and where it stands. */
export interface CallRow {
  id: string;
  kind: CallKind;
  idempotency_key: string;
  status: 'pending' | 'done';
  processor_account_id: string;
  donation_id: string | null;
  fundraiser_id: string | null;
  transfer_id: string | null;
  amount_cents: number;
  currency: string;
  metadata: Record<string, string>;
  details: Record<string, any>;
  processor_object_id: string | null;
  attempts: number;
  created_at: Date;
}

export type NewCall = Pick<CallRow, 'kind' | 'idempotency_key' | 'processor_account_id' | 'amount_cents' | 'currency' | 'metadata'> &
  Partial<Pick<CallRow, 'donation_id' | 'fundraiser_id' | 'transfer_id' | 'details'>>;

const COLS = [
  'id', 'kind', 'idempotency_key', 'status', 'processor_account_id', 'donation_id', 'fundraiser_id', 'transfer_id',
  'amount_cents', 'currency', 'metadata', 'details', 'processor_object_id', 'attempts', 'created_at',
];
const toCall = (r: any): CallRow | undefined => (r ? { ...r, amount_cents: Number(r.amount_cents) } : undefined);

/** Claims a call once: a second claim with the same key answers the first (pending or done). */
export async function insertCall(trx: Knex.Transaction, row: NewCall): Promise<CallRow> {
  await trx('processor_calls')
    .insert({ ...row, metadata: JSON.stringify(row.metadata), details: JSON.stringify(row.details ?? {}) })
    .onConflict('idempotency_key')
    .ignore();
  return (await callByKey(trx, row.idempotency_key))!;
}

export async function callByKey(db: Q, key: string): Promise<CallRow | undefined> {
  return toCall(await db('processor_calls').where({ idempotency_key: key }).first(COLS));
}

export async function callById(db: Q, id: string, opts: { lock?: boolean } = {}): Promise<CallRow | undefined> {
  const q = db('processor_calls').where({ id }).first(COLS);
  if (opts.lock) q.forUpdate();
  return toCall(await q);
}

/** The gift's transfer call, if one was ever claimed. */
export async function giftTransferCall(db: Q, donationId: string): Promise<CallRow | undefined> {
  return toCall(await db('processor_calls').where({ kind: 'transfer', donation_id: donationId }).first(COLS));
}

export async function pendingReversalOf(db: Q, transferId: string): Promise<CallRow | undefined> {
  return toCall(await db('processor_calls').where({ kind: 'transfer_reversal', transfer_id: transferId, status: 'pending' }).first(COLS));
}

/** The account's calls the processor may not have done yet, oldest first. */
export async function pendingCallIds(db: Q, accountId: string, limit: number): Promise<string[]> {
  const rows = await db('processor_calls').where({ processor_account_id: accountId, status: 'pending' }).orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(limit).select('id');
  return rows.map((r: any) => r.id);
}

/** Cents of pending user transfers out of a ledger liability (claimed, not in the ledger yet). */
export async function pendingOutOf(db: Q, liability: string): Promise<number> {
  const r = await db('processor_calls').where({ kind: 'user_transfer', status: 'pending' }).whereRaw(`details->>'liability' = ?`, [liability]).first(db.raw('coalesce(sum(amount_cents), 0)::bigint as s'));
  return Number(r?.s ?? 0);
}

export async function markDone(trx: Knex.Transaction, id: string, processorObjectId: string, details?: Record<string, unknown>): Promise<void> {
  await trx('processor_calls')
    .where({ id })
    .update({
      status: 'done',
      processor_object_id: processorObjectId,
      last_error: null,
      updated_at: trx.fn.now(),
      ...(details ? { details: trx.raw('details || ?::jsonb', [JSON.stringify(details)]) } : {}),
    });
}

export async function noteFailure(db: Q, id: string, message: string): Promise<void> {
  await db('processor_calls').where({ id }).update({ attempts: db.raw('attempts + 1'), last_error: message.slice(0, 2000), updated_at: db.fn.now() });
}
