import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { RELOCATED_DATA_BASE } from '../../src/db/postgres-user';
import { createDb, migrateLatest } from '../../src/db/knex';
import { pgbouncerMissing, startPgBouncer } from './pgbouncer';
import { reapedFolder } from './reaped';

/**
 * One fresh, migrated template database per test run: a new database on DATABASE_URL's server
 * when it is set, otherwise a throw-away embedded Postgres cluster. Each test file then clones
 * it (helpers/per-file-db.ts). Workers read TEST_TEMPLATE_URL.
 *
 * TEST_PGBOUNCER=1: one PgBouncer in transaction mode in front of that server, and every test
 * file's app gets the pooled URL as its database (TEST_DATABASE_URL) with the direct one beside
 * it (TEST_DIRECT_DATABASE_URL), as DATABASE_URL and DATABASE_DIRECT_URL in production.
 */
export default async function globalSetup(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  let url: string;
  const base = process.env.DATABASE_URL;
  if (base) {
    const name = `cf_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${name}`;
    url = u.toString();
    g.__dropTestDb = async () => {
      const c = new Client({ connectionString: base });
      await c.connect();
      const clones = await c.query('select datname from pg_database where datname like $1', [`${name}_f%`]);
      for (const { datname } of clones.rows) await c.query(`drop database if exists "${datname}" with (force)`);
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    };
  } else {
    // Its postmaster (pg/postmaster.pid) is stopped by the folder's reaper should jest be killed.
    const dir = reapedFolder('cf-test-pg-');
    fs.chmodSync(dir, 0o777);
    const emb = await startEmbeddedPostgres(path.join(dir, 'pg'), { database: 'cf_test', throwaway: true });
    url = emb.url;
    process.env.TEST_PG_DIR = dir;
    g.__dropTestDb = async () => {
      await emb.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      // As root with a temp folder the postgres user cannot enter, the cluster was put elsewhere.
      if (emb.dataDir.startsWith(RELOCATED_DATA_BASE + path.sep)) fs.rmSync(path.dirname(emb.dataDir), { recursive: true, force: true });
    };
  }
  const db = createDb(url, { max: 2 });
  await migrateLatest(db);
  await db.destroy();
  process.env.TEST_TEMPLATE_URL = url;
  process.env.TEST_DATABASE_URL = url;
  if (process.env.TEST_PGBOUNCER === '1' || process.env.TEST_PGBOUNCER === 'true') {
    const missing = pgbouncerMissing();
    if (missing) throw new Error(`TEST_PGBOUNCER=1: ${missing}`);
    // Each file's database is its own PgBouncer pool (5 server connections, the size of a test
    // file's knex pool); max_db_connections bounds a database over all users. Files run on at
    // most maxWorkers workers at once, so the server sees a few dozen connections at most, as
    // long as a finished file's idle server connections are closed soon (serverIdleTimeoutS).
    const bouncer = await startPgBouncer(url, { poolSize: 5, maxDbConnections: 8, maxClientConn: 2000, serverIdleTimeoutS: 2 });
    process.env.TEST_PGBOUNCER_PORT = String(bouncer.port);
    process.env.TEST_PGBOUNCER_DIR = bouncer.dir;
    const drop = g.__dropTestDb as () => Promise<void>;
    g.__dropTestDb = async () => {
      await bouncer.stop();
      await drop();
    };
  }
}
