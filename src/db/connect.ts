import path from 'node:path';
import type { Config } from '../config';
import { startEmbeddedPostgres } from './embedded';
import { createDb, migrateLatest, type Db } from './knex';

export interface DbHandle {
  db: Db;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** DATABASE_URL when set, otherwise the embedded cluster under DATA_DIR; migrations applied. */
export async function connectDatabase(
  config: Config,
  opts: { migrate?: boolean; log?: (msg: string) => void; callerHandlesSignals?: boolean } = {},
): Promise<DbHandle> {
  let url = config.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const emb = await startEmbeddedPostgres(path.join(config.DATA_DIR, 'pg'), {
      log: opts.log,
      callerHandlesSignals: opts.callerHandlesSignals,
    });
    url = emb.url;
    stopEmbedded = () => emb.stop();
  }
  const db = createDb(url);
  try {
    if (opts.migrate !== false) await migrateLatest(db);
  } catch (err) {
    await db.destroy();
    if (stopEmbedded) await stopEmbedded();
    throw err;
  }
  return {
    db,
    url,
    embedded: Boolean(stopEmbedded),
    async close() {
      await db.destroy();
      if (stopEmbedded) await stopEmbedded();
    },
  };
}
