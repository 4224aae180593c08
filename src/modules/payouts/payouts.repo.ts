import type { Knex } from 'knex';
import type { Db } from '../../db/knex';


type Q = Db | Knex.Transaction;

export * from './accounts.repo';

export type PayoutStatus = 'pending' | 'in_transit' | 'paid' | 'failed';

export interface PayoutRow {
  id: string;
  processor_payout_id: string;
  processor_account_id: string;
  amount_cents: number;
  currency: string;
  status: PayoutStatus;
  arrival_date: string | null;
  paid_group_id: string | null;
  reversal_group_id: string | null;
}

const PAYOUT_COLS = [
  'id', 'processor_payout_id', 'processor_account_id', 'amount_cents', 'currency', 'status',
  'paid_group_id', 'reversal_group_id',
];
const arrival = (db: Q) => db.raw(`to_char(arrival_date, 'YYYY-MM-DD') as arrival_date`);

// ---- transfers ----

export async function transferForDonation(db: Q, donationId: string) {
  return db('transfers').where({ donation_id: donationId }).first('id', 'processor_transfer_id', 'processor_account_id', 'fundraiser_id', 'amount_cents', 'currency');
}

export async function insertReversal(
  db: Q,
  row: { transfer_id: string; processor_reversal_id: string; processor_account_id: string; fundraiser_id: string; donation_id: string | null; amount_cents: number; currency: string; ledger_group_id: string },
): Promise<void> {
  await db('transfer_reversals').insert(row);
}

export async function insertTransfer(
  db: Q,
  row: { processor_transfer_id: string; processor_account_id: string; fundraiser_id: string; donation_id: string | null; amount_cents: number; currency: string },
): Promise<string> {
  const [r] = await db('transfers').insert(row).returning('id');
  return r.id;
}

/** Per campaign: transferred to the account (less reversals) and not yet withdrawn by a paid payout. */
export async function unwithdrawnByCampaign(db: Q, accountId: string): Promise<Array<{ fundraiser_id: string; cents: number }>> {
  const { rows } = await db.raw(
    `with t as (select fundraiser_id, sum(s) as s from (
                  select fundraiser_id, amount_cents as s from transfers where processor_account_id = ?
                  union all select fundraiser_id, -amount_cents from transfer_reversals where processor_account_id = ?) x
                 group by fundraiser_id),
          w as (select w.fundraiser_id, sum(w.amount_cents) as s from withdrawals w join payouts p on p.id = w.payout_id
                 where p.processor_account_id = ? and w.status = 'paid' group by w.fundraiser_id)
     select t.fundraiser_id, greatest(0, t.s - coalesce(w.s, 0))::bigint as cents from t left join w using (fundraiser_id)
      order by t.fundraiser_id`,
    [accountId, accountId, accountId],
  );
  return rows.map((r: any) => ({ fundraiser_id: r.fundraiser_id, cents: Number(r.cents) }));
}

/** Money moved to the account outside campaign transfers (a community fund withdrawal), under its bucket. */
export async function insertCredit(
  db: Q,
  row: { processor_transfer_id: string; processor_account_id: string; bucket: string; amount_cents: number; currency: string; ledger_group_id: string },
): Promise<void> {
  await db('connected_credits').insert(row);
}

/** Per bucket: credited to the account and not yet paid out by a paid payout. */
export async function unpaidByBucket(db: Q, accountId: string): Promise<Array<{ bucket: string; cents: number }>> {
  const { rows } = await db.raw(
    `with c as (select bucket, sum(amount_cents) as s from connected_credits where processor_account_id = ? group by bucket),
          w as (select b.bucket, sum(b.amount_cents) as s from payout_bucket_parts b join payouts p on p.id = b.payout_id
                 where p.processor_account_id = ? and b.status = 'paid' group by b.bucket)
     select c.bucket, (c.s - coalesce(w.s, 0))::bigint as cents from c left join w using (bucket)
      order by c.bucket`,
    [accountId, accountId],
  );
  return rows.map((r: any) => ({ bucket: r.bucket, cents: Number(r.cents) }));
}

export async function insertBucketParts(
  db: Q,
  rows: Array<{ payout_id: string; bucket: string; amount_cents: number; currency: string; status: PayoutStatus; arrival_date: string | null }>,
): Promise<void> {
  if (rows.length) await db('payout_bucket_parts').insert(rows).onConflict(['payout_id', 'bucket']).ignore();
}

/** The campaigns' share of a payout (what its transfers may be linked against). */
export async function campaignShareOf(db: Q, payoutId: string): Promise<number> {
  const r = await db('withdrawals').where({ payout_id: payoutId }).first(db.raw('coalesce(sum(amount_cents), 0)::bigint as s'));
  return Number(r?.s ?? 0);
}

/**
 * Links the account's unlinked transfers (so the gifts behind them), oldest first, to a paid
 * payout while they fit, net of their reversals, in what of its amount is not linked yet.
 * Answers how many it linked.
 */
export async function linkTransfers(trx: Knex.Transaction, accountId: string, payoutId: string, amountCents: number): Promise<number> {
  const { rows } = await trx.raw(
    `with net as (select t.id, t.payout_id, t.processor_account_id, t.created_at,
                         t.amount_cents - coalesce((select sum(r.amount_cents) from transfer_reversals r where r.transfer_id = t.id), 0) as cents
                    from transfers t where t.processor_account_id = ? and (t.payout_id is null or t.payout_id = ?)),
          room as (select ? - coalesce(sum(cents), 0) as cents from net where payout_id = ?),
          c as (select id, sum(cents) over (order by created_at, id) as running from net where payout_id is null)
     update transfers t set payout_id = ? from c, room where c.id = t.id and c.running <= room.cents returning t.id`,
    [accountId, payoutId, amountCents, payoutId, payoutId],
  );
  return rows.length;
}

export async function unlinkTransfers(db: Q, payoutId: string): Promise<void> {
  await db('transfers').where({ payout_id: payoutId }).update({ payout_id: null });
}

// ---- payouts and withdrawals ----

export async function payoutByProcessorId(db: Q, processorPayoutId: string, opts: { lock?: boolean } = {}): Promise<PayoutRow | undefined> {
  const q = db('payouts').where({ processor_payout_id: processorPayoutId }).first([...PAYOUT_COLS, arrival(db)]);
  if (opts.lock) q.forUpdate();
  return q;
}

/** Inserts the payout row unless it exists; answers the locked row and whether it was new. */
export async function upsertPayout(
  db: Q,
  row: { processor_payout_id: string; processor_account_id: string; amount_cents: number; currency: string; status: PayoutStatus; arrival_date: string | null },
): Promise<{ row: PayoutRow; inserted: boolean }> {
  const ins = await db('payouts').insert(row).onConflict('processor_payout_id').ignore().returning('id');
  return { row: (await payoutByProcessorId(db, row.processor_payout_id, { lock: true }))!, inserted: ins.length > 0 };
}

export async function updatePayout(db: Q, id: string, patch: Partial<Omit<PayoutRow, 'id'>>): Promise<void> {
  await db('payouts').where({ id }).update({ ...patch, updated_at: db.fn.now() });
}

export async function insertWithdrawals(
  db: Q,
  rows: Array<{ payout_id: string; fundraiser_id: string; amount_cents: number; currency: string; status: PayoutStatus; arrival_date: string | null }>,
): Promise<number> {
  if (!rows.length) return 0;
  const out = await db('withdrawals').insert(rows).onConflict(['payout_id', 'fundraiser_id']).ignore().returning('id');
  return out.length;
}

/** Whether the payout was split already (campaign withdrawals or other buckets' parts). */
export async function hasWithdrawals(db: Q, payoutId: string): Promise<boolean> {
  return !!(await db('withdrawals').where({ payout_id: payoutId }).first('id')) || !!(await db('payout_bucket_parts').where({ payout_id: payoutId }).first('id'));
}

export async function setWithdrawalsStatus(db: Q, payoutId: string, status: PayoutStatus, arrivalDate?: string | null): Promise<void> {
  const patch = { status, ...(arrivalDate !== undefined ? { arrival_date: arrivalDate } : {}) };
  await db('withdrawals').where({ payout_id: payoutId }).update(patch);
  await db('payout_bucket_parts').where({ payout_id: payoutId }).update(patch);
}

export async function payoutsOf(db: Q, accountIds: string[], limit: number, offset: number) {
  if (!accountIds.length) return { rows: [], total: 0 };
  const rows = await db('payouts')
    .whereIn('processor_account_id', accountIds)
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit)
    .offset(offset)
    .select('id', 'amount_cents', 'currency', 'status', arrival(db), db.raw('count(*) over() as total'));
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) total = Number((await db('payouts').whereIn('processor_account_id', accountIds).first(db.raw('count(*)::int as n')))?.n ?? 0);
  return { rows, total };
}

export async function withdrawalsOf(db: Q, fundraiserId: string) {
  return db('withdrawals')
    .where({ fundraiser_id: fundraiserId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .select('id', 'payout_id', 'fundraiser_id', 'amount_cents', 'currency', 'status', arrival(db), 'created_at');
}
