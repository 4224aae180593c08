import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { enqueue } from '../../infra/jobs';
import { deliverEvents, recordEvents, sandboxEvent, type DeliveryDeps, type SandboxEvent } from './sandbox-delivery';
import { nowS, sbId } from './sandbox-objects';
import { createObject, updateObject } from './sandbox.repo';
import { recordBalanceTxn } from './sandbox-balance';

/** Settles a sandbox payout (pending -> paid, `payout.paid`) once SANDBOX_PAYOUT_DELAY_S has passed. */
export const SANDBOX_PAYOUT_QUEUE = 'sandbox-payout';

/**
 * A connected account's available balance in one currency: what was transferred to it less
 * what was reversed and paid out (failed payouts return their money). Negative after a
 * reversal of money already paid out, until later transfers cover it.
 */
export async function connectedBalance(db: Db | Knex.Transaction, accountId: string, currency: string): Promise<number> {
  const { rows } = await db.raw(
    `select coalesce(sum(case when kind = 'transfer' then (data->>'amount')::bigint
                              else -(data->>'amount')::bigint end), 0)::bigint as balance
       from sandbox_objects
      where ((kind in ('transfer', 'transfer_reversal') and data->>'destination' = :acct)
          or (kind = 'payout' and data->>'account' = :acct and data->>'status' <> 'failed'))
        and data->>'currency' = :cur`,
    { acct: accountId, cur: currency.toLowerCase() },
  );
  return Number(rows[0].balance);
}

/**
 * Pays out the account's whole available balance in `currency` (Stripe's automatic payouts do
 * the same on their schedule), settling after `delaySeconds`. Concurrent transfers to one
 * account are serialised, so the same money is never paid out twice. Answers the payout id,
 * or null when nothing is available.
 */
export async function schedulePayout(db: Db, accountId: string, currency: string, delaySeconds: number): Promise<string | null> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`sandbox-payout:${accountId}`]);
    const amount = await connectedBalance(trx, accountId, currency);
    if (amount <= 0) return null;
    const id = sbId('po');
    const arrival = nowS() + delaySeconds;
    await createObject(trx, 'payout', id, {
      id,
      object: 'payout',
      account: accountId,
      amount,
      currency: currency.toLowerCase(),
      status: 'in_transit',
      arrival_date: arrival,
      automatic: true,
      method: 'standard',
      type: 'bank_account',
      created: nowS(),
      metadata: {},
    });
    // A connected account's payout, recorded with the account it leaves (its own balance, not the platform's).
    await recordBalanceTxn(trx, { type: 'payout', amount: -amount, currency, source: { id, object: 'payout', account: accountId } });
    await enqueue(trx, SANDBOX_PAYOUT_QUEUE, { payout_id: id }, { runAt: new Date(arrival * 1000), singletonKey: id });
    return id;
  });
}

/** The settle job: the payout is paid and a Connect `payout.paid` event goes to the webhook. */
export function settlePayoutHandler(deps: DeliveryDeps) {
  return async (payload: Record<string, unknown>): Promise<void> => {
    const events = await deps.db.transaction(async (trx) => {
      const row = await trx('sandbox_objects').where({ id: String(payload.payout_id), kind: 'payout' }).forUpdate().first('data');
      if (!row || row.data.status !== 'in_transit') return [] as SandboxEvent[];
      const patch = { status: 'paid', arrival_date: Math.min(Number(row.data.arrival_date), nowS()) };
      await updateObject(trx, row.data.id, patch);
      const evs = [sandboxEvent('payout.paid', { ...row.data, ...patch }, row.data.account)];
      await recordEvents(trx, evs);
      return evs;
    });
    // A failed delivery is retried by the event's own redelivery job, not by settling again.
    if (events.length) await deliverEvents(deps, events);
  };
}
