import type { Db } from '../../db/knex';

/** Category ids matching an id, a slug or a name in any locale (case-insensitive). */
export async function findCategoryIds(db: Db, value: string): Promise<number[]> {
  const v = value.trim();
  const asId = /^\d{1,9}$/.test(v) ? Number(v) : -1;
  const r = await db.raw(
    `select id from categories
      where id = ? or lower(slug) = lower(?)
         or exists (select 1 from jsonb_each_text(names) n where lower(n.value) = lower(?))`,
    [asId, v, v],
  );
  return r.rows.map((x: { id: number }) => x.id);
}

export interface CategoryRow {
  id: number;
  slug: string;
  names: Record<string, string>;
}

export async function categories(db: Db): Promise<CategoryRow[]> {
  return db('categories').select('id', 'slug', 'names').orderBy([{ column: 'sort_order' }, { column: 'id' }]);
}
