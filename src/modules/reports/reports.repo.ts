import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export type TargetType = 'fundraiser' | 'comment' | 'update' | 'user';

export interface ReportRow {
  id: string;
  reporter_user_id: string | null;
  target_type: TargetType;
  target_id: string;
  reason: string;
  details: string | null;
  status: string;
  created_at: Date;
}

export async function insert(db: Q, row: Omit<ReportRow, 'id' | 'status' | 'created_at'>): Promise<ReportRow> {
  const [r] = await db('reports').insert(row).returning('*');
  return r as ReportRow;
}

export async function list(db: Q, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db('reports').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).offset(offset),
    db('reports').count<{ n: string }[]>({ n: '*' }),
  ]);
  return { rows: rows as ReportRow[], total: Number(count[0]?.n ?? 0) };
}

const TABLE: Record<TargetType, string> = { fundraiser: 'fundraisers', comment: 'comments', update: 'project_updates', user: 'users' };

// A small read of the reported thing's table: whether it exists (deleted content can still be reported).
export async function targetExists(db: Q, type: TargetType, id: string): Promise<boolean> {
  return Boolean(await db(TABLE[type]).where({ id }).first('id'));
}
