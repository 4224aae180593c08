import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { sqlRef } from '../../db/sql-ref';
import type { Lang } from './fundraisers.schemas';

type Q = Db | Knex.Transaction;

/**
 * A declared view (read only) of the discovery module's categories, which a campaign names by
 * id: discovery imports this module (it lists campaigns), so the category reads a campaign needs
 * are made here rather than through discovery's index.
 */

/** Category id for an id (number or digits) or a slug; null when unknown. */
export async function resolveCategoryId(db: Q, value: string | number): Promise<number | null> {
  const asId = typeof value === 'number' ? value : /^\d{1,9}$/.test(value) ? Number(value) : null;
  const row = asId !== null
    ? await db('categories').where({ id: asId }).first('id')
    : await db('categories').whereRaw('lower(slug) = ?', [String(value).toLowerCase()]).first('id');
  return row ? (row.id as number) : null;
}

export async function categoryName(db: Q, id: number | null, lang: Lang): Promise<string | null> {
  if (id === null) return null;
  const row = await db('categories').where({ id }).first('names', 'slug');
  if (!row) return null;
  const names = (row.names ?? {}) as Record<string, string>;
  return names[lang] ?? names.en ?? row.slug ?? null;
}

/**
 * For one query: `left join categories <alias> on <alias>.id = <onRef>`, and the joined
 * category's name in the language bound at `langExpr`, else `fallbackLangExpr`, else English,
 * else its slug.
 */
export const categoryJoinSql = (alias: string, onRef: string): string => `left join categories ${sqlRef(alias)} on ${alias}.id = ${sqlRef(onRef)}`;
export const categoryNameSql = (alias: string, langExpr: string, fallbackLangExpr: string): string =>
  `coalesce(${sqlRef(alias)}.names->>coalesce(${langExpr}, ${fallbackLangExpr}), ${alias}.names->>'en', ${alias}.slug)`;
