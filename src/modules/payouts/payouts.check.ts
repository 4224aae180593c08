import type { Db } from '../../db/knex';
import { ledgerSql } from '../ledger';

type Check = (db: Db) => Promise<string[]>;

/**
 * Each connected account's ledger figures (the ledger's published totals) against the transfers,
 * transfer_reversals and payouts rows: what the ledger says was transferred in, reversed, paid out, and that the asset and its
 * liability mirror.
 */
const connectedAccounts: Check = async (db) => {
  const { rows } = await db.raw(
    `with l as ?,
     t as (select processor_account_id as id, sum(amount_cents) as s from transfers group by 1),
     r as (select processor_account_id as id, sum(amount_cents) as s from transfer_reversals group by 1),
     p as (select processor_account_id as id, sum(amount_cents) as s from payouts
            where paid_group_id is not null and reversal_group_id is null group by 1)
     select a.id, coalesce(l.transferred, 0)::bigint as l_transferred, coalesce(t.s, 0)::bigint as r_transferred,
            coalesce(l.reversed, 0)::bigint as l_reversed, coalesce(r.s, 0)::bigint as r_reversed,
            coalesce(l.paid_out, 0)::bigint as l_paid, coalesce(p.s, 0)::bigint as r_paid,
            coalesce(l.asset, 0)::bigint as asset, coalesce(l.payable, 0)::bigint as payable
       from (select id from processor_accounts union select id from l) a
       left join l on l.id = a.id left join t on t.id = a.id left join r on r.id = a.id left join p on p.id = a.id`,
    [ledgerSql.connectedAccountTotalsSql(db)],
  );
  const out: string[] = [];
  for (const r of rows) {
    if (Number(r.l_transferred) !== Number(r.r_transferred)) out.push(`account ${r.id}: ledger transferred ${r.l_transferred}, transfers rows ${r.r_transferred}`);
    if (Number(r.l_reversed) !== Number(r.r_reversed)) out.push(`account ${r.id}: ledger reversed ${r.l_reversed}, transfer_reversals rows ${r.r_reversed}`);
    if (Number(r.l_paid) !== Number(r.r_paid)) out.push(`account ${r.id}: ledger paid out ${r.l_paid}, paid payouts ${r.r_paid}`);
    if (Number(r.asset) !== Number(r.payable)) out.push(`account ${r.id}: connected asset ${r.asset} does not mirror its payable ${r.payable}`);
  }
  return out;
};

/** A paid payout's campaign withdrawals and other buckets' parts split it exactly. */
const payoutSplits: Check = async (db) => {
  const { rows } = await db.raw(
    `with parts as (select payout_id, amount_cents from withdrawals union all select payout_id, amount_cents from payout_bucket_parts)
     select p.id, p.amount_cents, sum(w.amount_cents)::bigint as split
       from payouts p join parts w on w.payout_id = p.id
      where p.paid_group_id is not null
      group by p.id, p.amount_cents having sum(w.amount_cents) <> p.amount_cents`,
  );
  return rows.map((r: any) => `payout ${r.id}: amount ${r.amount_cents}, withdrawals sum to ${r.split}`);
};

/** What the ledger moved into each connected account outside campaign transfers equals its connected_credits rows. */
const connectedCredits: Check = async (db) => {
  const { rows } = await db.raw(
    `with l as ?,
          c as (select processor_account_id as id, sum(amount_cents) as s from connected_credits group by 1)
     select coalesce(l.id, c.id) as id, coalesce(l.s, 0)::bigint as l_s, coalesce(c.s, 0)::bigint as c_s
       from l full join c on c.id = l.id where coalesce(l.s, 0) <> coalesce(c.s, 0)`,
    [ledgerSql.connectedCreditTotalsSql(db)],
  );
  return rows.map((r: any) => `account ${r.id}: ledger credited ${r.l_s} outside campaign transfers, connected_credits rows ${r.c_s}`);
};

/**
 * A transfer or reversal claimed over an hour ago and still not confirmed: the processor may have
 * moved the money while the ledger does not say so yet (its job, the sweep or POST
 * /payouts/refresh re-call it with the same key; past the key's window a person must reconcile it).
 */
const pendingCalls: Check = async (db) => {
  const rows = await db('processor_calls')
    .where({ status: 'pending' })
    .where('created_at', '<', db.raw(`now() - interval '1 hour'`))
    .orderBy('created_at')
    .limit(100)
    .select('id', 'kind', 'idempotency_key', 'processor_account_id', 'amount_cents', 'created_at', 'last_error');
  return rows.map(
    (r: any) =>
      `processor call ${r.id}: ${r.kind} of ${r.amount_cents} to ${r.processor_account_id} (key ${r.idempotency_key}) pending since ${new Date(r.created_at).toISOString()}${r.last_error ? `: ${r.last_error}` : ''}`,
  );
};

/** The payouts module's checks in one (the ledger's check list reaches it through an arrow, import cycles aside). */
export async function payoutLedgerCheck(db: Db): Promise<string[]> {
  return [...(await connectedAccounts(db)), ...(await payoutSplits(db)), ...(await connectedCredits(db)), ...(await pendingCalls(db))];
}
