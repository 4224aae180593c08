import { queryRows, type Db } from '../../db/knex';

export interface SandboxObject<T = Record<string, any>> {
  id: string;
  kind: string;
  data: T;
}

/** Inserts an object, or answers the one already created with the same idempotency key. */
export async function createObject<T>(db: Db, kind: string, id: string, data: T, idempotencyKey?: string): Promise<SandboxObject<T>> {
  const rows = await db('sandbox_objects')
    .insert({ id, kind, data: JSON.stringify(data), idempotency_key: idempotencyKey ?? null })
    .onConflict(db.raw('(kind, idempotency_key) where idempotency_key is not null'))
    .ignore()
    .returning(['id', 'kind', 'data']);
  if (rows[0]) return rows[0];
  return (await db('sandbox_objects').where({ kind, idempotency_key: idempotencyKey }).first('id', 'kind', 'data'))!;
}

// Fixed texts: the processor's fee is read this way before every settlement the sandbox takes.
const BY_ID_SQL = 'select id, kind, data from sandbox_objects where id = ? limit 1';
const BY_ID_KIND_SQL = 'select id, kind, data from sandbox_objects where id = ? and kind = ? limit 1';

export async function getObject<T = Record<string, any>>(db: Db, id: string, kind?: string): Promise<SandboxObject<T> | undefined> {
  const rows = await queryRows<SandboxObject<T>>(db, kind ? BY_ID_KIND_SQL : BY_ID_SQL, kind ? [id, kind] : [id]);
  return rows[0];
}

export async function updateObject(db: Db, id: string, patch: Record<string, unknown>): Promise<void> {
  await db('sandbox_objects')
    .where({ id })
    .update({ data: db.raw('data || ?::jsonb', [JSON.stringify(patch)]), updated_at: db.fn.now() });
}

export async function listObjects<T = Record<string, any>>(db: Db, kind: string, where: Record<string, string>, limit = 100): Promise<SandboxObject<T>[]> {
  const q = db('sandbox_objects').where({ kind });
  for (const [k, v] of Object.entries(where)) q.andWhereRaw('data->>? = ?', [k, v]);
  return q.orderBy('created_at', 'desc').limit(limit).select('id', 'kind', 'data');
}
