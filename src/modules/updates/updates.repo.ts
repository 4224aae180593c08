import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { Locale } from '../../integrations/translate';

type Q = Db | Knex.Transaction;

export interface UpdateRow {
  id: string;
  fundraiser_id: string;
  author_user_id: string;
  title: string | null;
  body: string;
  language: Locale;
  like_count: number;
  created_at: Date;
  edited_at: Date | null;
  deleted_at: Date | null;
  liked_by_me?: boolean;
}

export interface TranslationRow {
  update_id: string;
  lang: Locale;
  title: string | null;
  body: string;
  source: 'human' | 'machine';
  outdated: boolean;
  updated_at: Date;
}

const COLUMNS = ['u.id', 'u.fundraiser_id', 'u.author_user_id', 'u.title', 'u.body', 'u.language', 'u.like_count', 'u.created_at', 'u.edited_at', 'u.deleted_at'];

/** Live updates of a campaign, newest first, with whether `viewerId` likes each. */
export async function listLive(db: Q, fundraiserId: string, viewerId: string | null): Promise<UpdateRow[]> {
  return (await db('project_updates as u')
    .where('u.fundraiser_id', fundraiserId)
    .whereNull('u.deleted_at')
    .orderBy([{ column: 'u.created_at', order: 'desc' }, { column: 'u.id', order: 'desc' }])
    .select(
      ...COLUMNS,
      viewerId
        ? db.raw('exists (select 1 from update_likes l where l.update_id = u.id and l.user_id = ?) as liked_by_me', [viewerId])
        : db.raw('false as liked_by_me'),
    )) as UpdateRow[];
}

/** A live update of the given campaign (another campaign's or a withdrawn one: undefined). */
export async function findLive(db: Q, fundraiserId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<UpdateRow | undefined> {
  const q = db('project_updates as u').where({ 'u.id': id, 'u.fundraiser_id': fundraiserId }).whereNull('u.deleted_at').first(...COLUMNS);
  return (await (opts.forUpdate ? q.forUpdate() : q)) as UpdateRow | undefined;
}

export async function findById(db: Q, id: string): Promise<UpdateRow | undefined> {
  return (await db('project_updates as u').where('u.id', id).first(...COLUMNS)) as UpdateRow | undefined;
}

export async function insert(
  trx: Knex.Transaction,
  row: { fundraiser_id: string; author_user_id: string; title: string | null; body: string; language: Locale },
): Promise<UpdateRow> {
  const [r] = await trx('project_updates').insert(row).returning('*');
  return r as UpdateRow;
}

export async function edit(trx: Knex.Transaction, id: string, patch: { title: string | null; body: string; language: Locale }): Promise<UpdateRow> {
  const [r] = await trx('project_updates').where({ id }).update({ ...patch, edited_at: trx.fn.now() }).returning('*');
  return r as UpdateRow;
}

export async function withdraw(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('project_updates').where({ id }).whereNull('deleted_at').update({ deleted_at: trx.fn.now() });
}

/** Idempotent like: the counter moves only when a row was really added or removed. */
export async function setLike(trx: Knex.Transaction, updateId: string, userId: string, liked: boolean): Promise<number> {
  const changed = liked
    ? (await trx('update_likes').insert({ update_id: updateId, user_id: userId }).onConflict(['update_id', 'user_id']).ignore().returning('update_id')).length
    : await trx('update_likes').where({ update_id: updateId, user_id: userId }).del();
  const q = trx('project_updates').where({ id: updateId });
  const [row] = changed
    ? await (liked ? q.increment('like_count', 1) : q.decrement('like_count', 1)).returning('like_count')
    : await q.select('like_count');
  return Number(row.like_count);
}

export async function translationsOf(db: Q, updateIds: string[], lang?: Locale): Promise<TranslationRow[]> {
  if (updateIds.length === 0) return [];
  const q = db('update_translations').whereIn('update_id', updateIds).orderBy(['update_id', 'lang']);
  if (lang) q.where({ lang });
  return (await q.select('*')) as TranslationRow[];
}

export async function findTranslation(db: Q, updateId: string, lang: Locale): Promise<TranslationRow | undefined> {
  return (await db('update_translations').where({ update_id: updateId, lang }).first()) as TranslationRow | undefined;
}

/** Creates or overwrites the row in `lang`. */
export async function upsertTranslation(
  trx: Knex.Transaction,
  row: { update_id: string; lang: Locale; title: string | null; body: string; source: 'human' | 'machine' },
): Promise<TranslationRow> {
  const [r] = await trx('update_translations')
    .insert({ ...row, outdated: false, updated_at: trx.fn.now() })
    .onConflict(['update_id', 'lang'])
    .merge(['title', 'body', 'source', 'outdated', 'updated_at'])
    .returning('*');
  return r as TranslationRow;
}

/** The update's words changed: machine rows go (they are redone), hand-made ones are kept but marked outdated. */
export async function invalidateTranslations(trx: Knex.Transaction, updateId: string): Promise<void> {
  await trx('update_translations').where({ update_id: updateId, source: 'machine' }).del();
  await trx('update_translations').where({ update_id: updateId, source: 'human' }).update({ outdated: true });
}

export async function likedBy(db: Q, updateId: string, userId: string): Promise<boolean> {
  return Boolean(await db('update_likes').where({ update_id: updateId, user_id: userId }).first('update_id'));
}
