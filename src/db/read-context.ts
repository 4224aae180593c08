import type { AppContext } from '../context';
import type { Db } from './knex';

const derived = new WeakMap<AppContext, Map<Db, AppContext>>();

/**
 * `ctx` with `db` (a standby's pool from ctx.replicas.read) as its database, for reads that take a
 * context. One object per (context, pool), never one per request: per-context state such as the
 * ranked-search gate (search-limit.ts, keyed by the context) must stay bounded, here per standby pool.
 */
export function onDb(ctx: AppContext, db: Db): AppContext {
  if (db === ctx.db) return ctx;
  let byDb = derived.get(ctx);
  if (!byDb) derived.set(ctx, (byDb = new Map()));
  let out = byDb.get(db);
  if (!out) byDb.set(db, (out = { ...ctx, db }));
  return out;
}
