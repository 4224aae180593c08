import type { Knex } from 'knex';
import { queryRows, type Db } from '../../db/knex';
import { accounts, RAISED_KINDS, type LedgerKind } from './accounts';

type Q = Db | Knex.Transaction;

export interface LedgerEntry {
  account: string;
  amount_cents: number;
  currency: string;
  kind: LedgerKind;
  fundraiser_id?: string | null;
  donation_id?: string | null;
  tip_id?: string | null;
  processor_account_id?: string | null;
}

/**
 * One statement of fixed text for the whole group: a column per array (unnest keeps the entries'
 * order), so neither the statement nor its parameter list grows with the group, run past knex's
 * builder and runner (a measurable part of a settlement's CPU).
 */
const INSERT_GROUP_SQL = `insert into ledger_entries
    (group_id, account, amount_cents, currency, kind, source_event_id, fundraiser_id, donation_id, tip_id, processor_account_id, processor_ref, processor_move)
  select ?::uuid, e.account, e.amount_cents, e.currency, e.kind, ?, e.fundraiser_id, e.donation_id, e.tip_id, e.processor_account_id, ?, ?
    from unnest(?::text[], ?::bigint[], ?::text[], ?::text[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[])
      as e(account, amount_cents, currency, kind, fundraiser_id, donation_id, tip_id, processor_account_id)`;

export async function insertGroup(trx: Knex.Transaction, groupId: string, entries: LedgerEntry[], sourceEventId: string | null, processor: { ref: string; move: string } | null = null) {
  await queryRows(trx, INSERT_GROUP_SQL, [
    groupId,
    sourceEventId,
    processor?.ref ?? null,
    processor?.move ?? null,
    entries.map((e) => e.account),
    entries.map((e) => e.amount_cents),
    entries.map((e) => e.currency.toLowerCase()),
    entries.map((e) => e.kind),
    entries.map((e) => e.fundraiser_id ?? null),
    entries.map((e) => e.donation_id ?? null),
    entries.map((e) => e.tip_id ?? null),
    entries.map((e) => e.processor_account_id ?? null),
  ]);
}

/** Balance of one account (signed: positive = debit). */
export async function balance(db: Q, account: string, kinds?: LedgerKind[]): Promise<number> {
  const q = db('ledger_entries').where({ account });
  if (kinds) q.whereIn('kind', kinds);
  const row = await q.sum<{ s: string | null }[]>({ s: 'amount_cents' });
  return Number(row[0]?.s ?? 0);
}

/** How many posted groups the ledger holds (the operator's check-ledger summary). */
export async function groupCount(db: Q): Promise<number> {
  const r = await db('ledger_entries').first(db.raw('count(distinct group_id) as n'));
  return Number(r?.n ?? 0);
}

export async function unbalancedGroups(db: Q): Promise<Array<{ group_id: string; currency: string; off: number }>> {
  const rows = await db('ledger_entries')
    .select('group_id', 'currency')
    .sum({ off: 'amount_cents' })
    .groupBy('group_id', 'currency')
    .havingRaw('sum(amount_cents) <> 0');
  return rows.map((r: any) => ({ group_id: r.group_id, currency: r.currency, off: Number(r.off) }));
}

/** Per campaign: the raised total (donations less refunds and disputes) and the tips, as the ledger says. */
export interface CampaignFigures {
  fundraiser_id: string;
  raised: number;
  tips: number;
}

/** Every campaign with entries: its raised total and tips as the ledger says (what the campaign's counters must equal). */
export async function campaignLedgerFigures(db: Q): Promise<CampaignFigures[]> {
  const { rows } = await db.raw(
    `select fundraiser_id,
            -coalesce(sum(amount_cents) filter (where account like ? and kind = any(?)), 0) as raised,
            -coalesce(sum(amount_cents) filter (where account = ?), 0) as tips
       from ledger_entries where fundraiser_id is not null group by fundraiser_id`,
    [`${accounts.campaign('')}%`, RAISED_KINDS, accounts.tips],
  );
  return rows.map((r: any) => ({ fundraiser_id: r.fundraiser_id as string, raised: Number(r.raised), tips: Number(r.tips) }));
}
