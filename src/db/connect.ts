import path from 'node:path';
import type { Config } from '../config';
import { startEmbeddedPostgres } from './embedded';
import { createDb, migrateLatest, type Db } from './knex';

export interface DbHandle {
  db: Db;
  url: string;
  /** The direct connection (DATABASE_DIRECT_URL, else `url`): LISTEN, migrations, the job engine. */
  directUrl: string;
  /** `url` is a transaction-mode pooler. */
  pooled: boolean;
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set, otherwise the embedded cluster under DATA_DIR; migrations applied. The
 * pool has the request class's bounds (DB_ACQUIRE_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS) unless
 * `statementTimeoutMs` says otherwise (0 = none, for the operator CLI).
 */
export async function connectDatabase(
  config: Config,
  opts: {
    migrate?: boolean;
    log?: (msg: string) => void;
    /** Said once when, as root, the embedded cluster's data has to live outside DATA_DIR. */
    notice?: (msg: string) => void;
    callerHandlesSignals?: boolean;
    statementTimeoutMs?: number;
  } = {},
): Promise<DbHandle> {
  let url = config.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const emb = await startEmbeddedPostgres(path.join(config.DATA_DIR, 'pg'), {
      log: opts.log,
      notice: opts.notice,
      callerHandlesSignals: opts.callerHandlesSignals,
    });
    url = emb.url;
    stopEmbedded = () => emb.stop();
  }
  const directUrl = config.DATABASE_DIRECT_URL ?? url;
  try {
    // Migrations on a direct pool of their own without a statement timeout: a data migration may
    // run long, and knex's migration lock and graphile-worker's migrations want one session.
    if (opts.migrate !== false) {
      const migrator = createDb(directUrl, { max: 1 });
      try {
        await migrateLatest(migrator);
      } finally {
        await migrator.destroy();
      }
    }
  } catch (err) {
    if (stopEmbedded) await stopEmbedded();
    throw err;
  }
  const db = createDb(url, {
    acquireTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
    statementTimeoutMs: opts.statementTimeoutMs ?? config.DB_STATEMENT_TIMEOUT_MS,
    directUrl: config.DATABASE_DIRECT_URL,
  });
  return {
    db,
    url,
    directUrl,
    pooled: directUrl !== url,
    embedded: Boolean(stopEmbedded),
    async close() {
      await db.destroy();
      if (stopEmbedded) await stopEmbedded();
    },
  };
}
