import type pg from 'pg';
import type { Knex } from 'knex';

// Knex, not db/knex's Db alias: db/ imports this file, and infra/ never reaches back into db/.
type Db = Knex;

/**
 * Where a process reaches Postgres (docs/decisions/0014-transaction-mode-pooler.md):
 * - `url`: what requests and jobs use (DATABASE_URL). With DATABASE_DIRECT_URL set it is a
 *   transaction-mode pooler (PgBouncer), so nothing on it may rely on session state.
 * - `directUrl`: a session of its own with the server (DATABASE_DIRECT_URL, else `url`): LISTEN,
 *   migrations and the job engine's connections.
 * Replicas (DATABASE_REPLICA_URLS) will hang off this shape too.
 */
export interface DatabaseEndpoints {
  url: string;
  directUrl: string;
  /** True when `url` is a transaction-mode pooler (DATABASE_DIRECT_URL is set). */
  pooled: boolean;
}

export function databaseEndpoints(url: string, directUrl?: string): DatabaseEndpoints {
  return { url, directUrl: directUrl ?? url, pooled: Boolean(directUrl) && directUrl !== url };
}

/** What createDb records on each pool: its endpoints and the direct session settings. */
export interface PoolEndpoints extends DatabaseEndpoints {
  /** pg client settings for a direct session (LISTEN, the job engine): the pool's own when not pooled. */
  direct: pg.ClientConfig;
}

const ENDPOINTS = Symbol('db endpoints');

export function recordEndpoints(db: Db, e: PoolEndpoints): void {
  (db as unknown as Record<symbol, PoolEndpoints>)[ENDPOINTS] = e;
}

/** The endpoints a pool was made with; a pool from elsewhere counts as direct. */
export function endpointsOf(db: Db): PoolEndpoints {
  const known = (db as unknown as Record<symbol, PoolEndpoints | undefined>)[ENDPOINTS];
  if (known) return known;
  const conn = (db.client.config as { connection?: unknown }).connection;
  const direct = typeof conn === 'string' ? { connectionString: conn } : ({ ...(conn as pg.ClientConfig), password: (conn as pg.ClientConfig)?.password } as pg.ClientConfig);
  const url = direct.connectionString ?? '';
  return { url, directUrl: url, pooled: false, direct };
}

/** pg settings for a session of its own with the server (LISTEN, the job engine's pool). */
export function directConnection(db: Db): pg.ClientConfig {
  return { ...endpointsOf(db).direct };
}
