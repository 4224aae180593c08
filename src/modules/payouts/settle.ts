import type { AppContext } from '../../context';
import { enqueue } from '../../infra/jobs';
import { SWEEP_QUEUE } from './accounts.service';
import { queueCall } from './calls.queue';
import * as calls from './processor-calls.repo';
import type { CallRow } from './processor-calls.repo';
import { untransferredGifts } from './gifts.reads';
import * as repo from './payouts.repo';
import { claimReversal, confirmReversal } from './transfer-reversals';
import { claimGiftTransfer, confirmGiftTransfer } from './transfers.service';
import { confirmUserTransfer } from './user-transfers';

/** Gifts one sweep claims; more are left to a follow-up job. */
const SWEEP_BATCH = 100;
/** Ledger entries each confirmed call posts (one balanced group of four). */
const ENTRIES_PER_CALL = 4;
/**
 * Stripe forgets an idempotency key after 24 hours: a re-call after that could move the money a
 * second time, so an older claim is left for a person to reconcile (check-ledger names it).
 */
export const KEY_WINDOW_MS = 23 * 60 * 60_000;

export interface Settled {
  calls: number;
  ledger_entries: number;
  failed: number;
}

/** The processor call a claim stands for, with the claim's own key and parameters (so a re-call is the same call). */
async function callProcessor(ctx: AppContext, call: CallRow): Promise<string> {
  if (call.kind === 'transfer_reversal') {
    const rev = await ctx.payments.createTransferReversal({
      transfer_id: String(call.details.processor_transfer_id),
      amount_cents: call.amount_cents,
      metadata: call.metadata,
      idempotencyKey: call.idempotency_key,
    });
    return rev.id;
  }
  const tr = await ctx.payments.createTransfer({
    amount_cents: call.amount_cents,
    currency: call.currency,
    destination: call.processor_account_id,
    metadata: call.metadata,
    idempotencyKey: call.idempotency_key,
  });
  return tr.id;
}

/**
 * Confirms a call the processor made, in one short transaction under the account row's lock
 * (the lock every claim of the holder takes): the rows and ledger group of its kind, once (a
 * second confirm finds it done). A refund or dispute that came while the call was out found no
 * confirmed transfer, or a reversal in flight: what it owes is claimed now. Answers whether
 * this confirmed it, and that follow-up claim.
 */
async function confirm(ctx: AppContext, callId: string, objectId: string): Promise<{ confirmed: boolean; next: CallRow | null }> {
  return ctx.db.transaction(async (trx) => {
    const seen = await calls.callById(trx, callId);
    if (!seen) return { confirmed: false, next: null };
    await repo.accountById(trx, seen.processor_account_id, { lock: true });
    const call = await calls.callById(trx, callId, { lock: true });
    if (!call || call.status !== 'pending') return { confirmed: false, next: null };
    if (call.kind === 'transfer') await confirmGiftTransfer(trx, call, objectId);
    else if (call.kind === 'transfer_reversal') await confirmReversal(trx, call, objectId);
    else await confirmUserTransfer(trx, call, objectId);
    await calls.markDone(trx, call.id, objectId);
    const next = call.donation_id ? await claimReversal(trx, call.donation_id) : null;
    await queueCall(trx, next, { backstop: true });
    return { confirmed: true, next };
  });
}

/**
 * Runs one claimed call: the processor outside any transaction, with the claim's idempotency
 * key (a call the processor already made answers the same object), then the confirm, then any
 * follow-up claim the same way. A processor error is noted on the claim, which stays pending
 * for its job's retry, the sweep or `POST /payouts/refresh`, and rethrown.
 */
export async function runCall(ctx: AppContext, callId: string): Promise<Settled> {
  const out: Settled = { calls: 0, ledger_entries: 0, failed: 0 };
  let id: string | null = callId;
  while (id) {
    const call = await calls.callById(ctx.db, id);
    if (!call || call.status !== 'pending') break;
    if (Date.now() - new Date(call.created_at).getTime() > KEY_WINDOW_MS) {
      throw new Error(`processor call ${call.id} (${call.idempotency_key}) is older than the processor's idempotency window: reconcile it by hand`);
    }
    let objectId: string;
    try {
      objectId = await callProcessor(ctx, call);
    } catch (err) {
      await calls.noteFailure(ctx.db, call.id, String((err as Error)?.message ?? err));
      throw err;
    }
    const r = await confirm(ctx, call.id, objectId);
    if (r.confirmed) {
      out.calls += 1;
      out.ledger_entries += ENTRIES_PER_CALL;
    }
    id = r.next?.id ?? null;
  }
  return out;
}

/** Runs every pending call of the account (the repair of a crash or an error between the steps); one failure does not stop the rest. */
export async function settlePending(ctx: AppContext, accountId: string): Promise<Settled> {
  const out: Settled = { calls: 0, ledger_entries: 0, failed: 0 };
  for (const id of await calls.pendingCallIds(ctx.db, accountId, 500)) {
    try {
      const r = await runCall(ctx, id);
      out.calls += r.calls;
      out.ledger_entries += r.ledger_entries;
    } catch (err) {
      out.failed += 1;
      ctx.log.warn({ err, callId: id, accountId }, 'processor call still pending: the processor failed');
    }
  }
  return out;
}

/**
 * The sweep: claims every settled gift of the holder's campaigns not transferred yet (in
 * batches, in one short transaction), then runs the account's pending calls outside it. A
 * failed call makes the job retry later.
 */
export async function sweepAccount(ctx: AppContext, accountId: string): Promise<number> {
  const full = await ctx.db.transaction(async (trx) => {
    const account = await repo.accountById(trx, accountId, { lock: true });
    if (!account || account.status !== 'active') return null;
    const gifts = await untransferredGifts(trx, { type: account.owner_type, id: account.owner_id }, SWEEP_BATCH);
    for (const id of gifts) await claimGiftTransfer(trx, account, id);
    return gifts.length === SWEEP_BATCH;
  });
  if (full === null) return 0;
  const s = await settlePending(ctx, accountId);
  // A full batch may leave more behind; a batch that moved nothing (campaigns already square, or the processor down) ends the sweep.
  if (full && s.calls > 0) await enqueue(ctx.db, SWEEP_QUEUE, { account_id: accountId });
  if (s.failed > 0) throw new Error(`${s.failed} processor call(s) of account ${accountId} failed; the sweep retries`);
  return s.calls;
}
