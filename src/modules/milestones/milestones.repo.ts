import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { Locale } from '../../integrations/translate';

type Q = Db | Knex.Transaction;

export interface MilestoneRow {
  id: string;
  fundraiser_id: string;
  title: string;
  description: string | null;
  due_date: string | null;
  amount_cents: string | number | null;
  status: 'planned' | 'in_progress' | 'done';
  completed_at: Date | null;
  language: Locale;
  created_at: Date;
}

export interface MilestoneTranslationRow {
  milestone_id: string;
  lang: Locale;
  title: string;
  description: string | null;
  source: 'human' | 'machine';
}

const COLUMNS = ['id', 'fundraiser_id', 'title', 'description', 'amount_cents', 'status', 'completed_at', 'language', 'created_at'];
const select = (db: Q) => [...COLUMNS, db.raw(`to_char(due_date, 'YYYY-MM-DD') as due_date`)];

export async function listFor(db: Q, fundraiserId: string): Promise<MilestoneRow[]> {
  return (await db('milestones')
    .where({ fundraiser_id: fundraiserId })
    .orderByRaw('due_date asc nulls last, created_at asc, id asc')
    .select(select(db))) as MilestoneRow[];
}

export async function findOne(db: Q, fundraiserId: string, id: string, forUpdate = false): Promise<MilestoneRow | undefined> {
  const q = db('milestones').where({ id, fundraiser_id: fundraiserId }).first(select(db));
  return (await (forUpdate ? q.forUpdate() : q)) as MilestoneRow | undefined;
}

export async function findById(db: Q, id: string): Promise<MilestoneRow | undefined> {
  return (await db('milestones').where({ id }).first(select(db))) as MilestoneRow | undefined;
}

export async function insert(trx: Knex.Transaction, row: Record<string, unknown>): Promise<string> {
  const [r] = await trx('milestones').insert(row).returning('id');
  return r.id as string;
}

export async function update(trx: Knex.Transaction, id: string, patch: Record<string, unknown>): Promise<void> {
  await trx('milestones').where({ id }).update({ ...patch, updated_at: trx.fn.now() });
}

export async function remove(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('milestones').where({ id }).del();
}

export async function translationsOf(db: Q, ids: string[], lang?: Locale): Promise<MilestoneTranslationRow[]> {
  if (ids.length === 0) return [];
  const q = db('milestone_translations').whereIn('milestone_id', ids);
  if (lang) q.where({ lang });
  return (await q.select('*')) as MilestoneTranslationRow[];
}

/** The words changed: machine rows are redone by the job. */
export async function dropMachineTranslations(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('milestone_translations').where({ milestone_id: id, source: 'machine' }).del();
}

export async function insertMachineTranslation(trx: Knex.Transaction, row: { milestone_id: string; lang: Locale; title: string; description: string | null }) {
  await trx('milestone_translations').insert({ ...row, source: 'machine' }).onConflict(['milestone_id', 'lang']).ignore();
}

/** A campaign's milestones by status, and the sum of their amounts (the money allocated to them). */
export async function milestoneCounts(db: Q, fundraiserId: string) {
  const r = await db('milestones')
    .where({ fundraiser_id: fundraiserId })
    .first(
      db.raw('count(*)::int as total'),
      db.raw(`count(*) filter (where status = 'planned')::int as planned`),
      db.raw(`count(*) filter (where status = 'in_progress')::int as in_progress`),
      db.raw(`count(*) filter (where status = 'done')::int as done`),
      db.raw('coalesce(sum(amount_cents), 0)::bigint as allocated_cents'),
    );
  return {
    total: Number(r?.total ?? 0),
    planned: Number(r?.planned ?? 0),
    in_progress: Number(r?.in_progress ?? 0),
    done: Number(r?.done ?? 0),
    allocated_cents: Number(r?.allocated_cents ?? 0),
  };
}
