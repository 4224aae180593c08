import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface NoticeRow {
  id: string;
  complainant_name: string;
  complainant_email: string;
  work_description: string;
  infringing_urls: string[];
  signature: string;
  status: 'received' | 'actioned';
  created_at: Date;
  actioned_at: Date | null;
}

export interface TakedownRow {
  id: string;
  notice_id: string;
  fundraiser_id: string;
  staff_user_id: string | null;
  url: string;
  media_id: string | null;
  created_at: Date;
}

export async function insertNotice(db: Q, row: Omit<NoticeRow, 'id' | 'status' | 'created_at' | 'actioned_at'>): Promise<NoticeRow> {
  const [out] = await db('dmca_notices').insert(row).returning('*');
  return out as NoticeRow;
}

export async function listNotices(db: Q, opts: { limit: number; offset: number; status?: string }) {
  const base = () => (opts.status ? db('dmca_notices').where({ status: opts.status }) : db('dmca_notices'));
  const [rows, count] = await Promise.all([
    base().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(opts.limit).offset(opts.offset),
    base().count<{ n: string }[]>({ n: '*' }),
  ]);
  return { rows: rows as NoticeRow[], total: Number(count[0]?.n ?? 0) };
}

export async function noticeForUpdate(trx: Knex.Transaction, id: string): Promise<NoticeRow | undefined> {
  return trx('dmca_notices').where({ id }).forUpdate().first();
}

export async function markActioned(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('dmca_notices').where({ id }).update({ status: 'actioned', actioned_at: trx.fn.now() });
}

export async function insertTakedowns(trx: Knex.Transaction, rows: Array<Omit<TakedownRow, 'id' | 'created_at'>>): Promise<TakedownRow[]> {
  if (rows.length === 0) return [];
  return (await trx('dmca_takedowns').insert(rows).returning('*')) as TakedownRow[];
}

export async function takedownsOf(db: Q, noticeIds: string[]): Promise<TakedownRow[]> {
  if (noticeIds.length === 0) return [];
  return db('dmca_takedowns').whereIn('notice_id', noticeIds).orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]);
}
