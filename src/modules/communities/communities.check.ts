import type { Db } from '../../db/knex';
import { ledgerSql } from '../ledger';

/**
 * Every community fund against its rows: what the ledger's published fund totals say came in
 * (payments), went to the processor (fees), back to payers (refunds) and out (withdrawals) equals the
 * community_payments and community_withdrawals rows, and nothing was withdrawn that had not come in.
 */
export async function communityLedgerCheck(db: Db): Promise<string[]> {
  const { rows } = await db.raw(
    `with l as ?,
     p as (select community_id::text as id, sum(amount_cents) as paid, sum(fee_cents) as fees, sum(refunded_cents) as refunded from community_payments group by 1),
     w as (select community_id::text as id, sum(amount_cents) as withdrawn from community_withdrawals group by 1)
     select a.id,
            coalesce(l.paid, 0)::bigint as l_paid, coalesce(p.paid, 0)::bigint as r_paid,
            coalesce(l.fees, 0)::bigint as l_fees, coalesce(p.fees, 0)::bigint as r_fees,
            coalesce(l.refunded, 0)::bigint as l_refunded, coalesce(p.refunded, 0)::bigint as r_refunded,
            coalesce(l.withdrawn, 0)::bigint as l_withdrawn, coalesce(w.withdrawn, 0)::bigint as r_withdrawn,
            coalesce(l.fund, 0)::bigint as fund
       from (select id::text from communities union select id from l) a
       left join l on l.id = a.id left join p on p.id = a.id left join w on w.id = a.id`,
    [ledgerSql.communityFundTotalsSql(db)],
  );
  const out: string[] = [];
  for (const r of rows) {
    if (Number(r.l_paid) !== Number(r.r_paid)) out.push(`community ${r.id}: ledger payments ${r.l_paid}, payment rows ${r.r_paid}`);
    if (Number(r.l_fees) !== Number(r.r_fees)) out.push(`community ${r.id}: ledger fees ${r.l_fees}, payment rows' fees ${r.r_fees}`);
    if (Number(r.l_refunded) !== Number(r.r_refunded)) out.push(`community ${r.id}: ledger refunds ${r.l_refunded}, payment rows' refunds ${r.r_refunded}`);
    if (Number(r.l_withdrawn) !== Number(r.r_withdrawn)) out.push(`community ${r.id}: ledger withdrawals ${r.l_withdrawn}, withdrawal rows ${r.r_withdrawn}`);
    // A refund made at the processor after a withdrawal may leave the fund owing; withdrawals alone never may.
    if (Number(r.fund) + Number(r.l_refunded) < 0) out.push(`community ${r.id}: withdrawals exceed what came in (fund ${r.fund} before refunds of ${r.l_refunded})`);
  }
  return out;
}
