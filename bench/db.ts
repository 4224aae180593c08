import path from 'node:path';
import { Client } from 'pg';
import { parseConfig, type Config } from '../src/config';
import { connectDatabase, type DbHandle } from '../src/db/connect';
import type { Db } from '../src/db/knex';
import { seed } from './seed';

/** BENCH_DB picks another name, so concurrent benches on one server do not reseed each other's data. */
export const BENCH_DB = process.env.BENCH_DB ?? 'cf_bench';

/** DATABASE_URL's server with the bench database (created when missing); undefined = embedded Postgres. */
export async function benchDatabaseUrl(): Promise<string | undefined> {
  const base = process.env.DATABASE_URL;
  if (!base) return undefined; // embedded cluster under .data/bench
  const admin = new Client({ connectionString: base });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [BENCH_DB]);
  if (exists.rowCount === 0) await admin.query(`create database ${BENCH_DB}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${BENCH_DB}`;
  return u.toString();
}

/** A new, empty database `name` on the server of `base` (dropped first when it exists); its URL. */
export async function freshDatabase(base: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Seeds `n` bench campaigns unless they are there already (or BENCH_RESEED is set). */
export async function ensureSeeded(db: Db, n: number, log: (m: string) => void): Promise<void> {
  const have = Number((await db.raw(`select count(*) n from fundraisers where slug like 'bench-%'`)).rows[0].n);
  if (have >= n && !process.env.BENCH_RESEED) {
    log(`reusing ${have} seeded campaigns`);
    return;
  }
  await db.raw(`delete from fundraisers where slug like 'bench-%'`);
  const t0 = Date.now();
  await seed(db, n, log);
  log(`seeded ${n} campaigns in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/**
 * The bench database (DATABASE_URL's server, or embedded under .data/bench), migrated and seeded
 * with `n` campaigns, with the production config the in-process benches serve it under.
 */
export async function openBenchDatabase(n: number, log: (m: string) => void): Promise<{ config: Config; handle: DbHandle }> {
  const databaseUrl = await benchDatabaseUrl();
  const config = parseConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    RUN_JOBS: 'false',
    TRUST_PROXY: 'true',
    DATA_DIR: path.resolve(__dirname, '../.data/bench'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  // No statement timeout: seeding 100k campaigns runs long statements.
  const handle = await connectDatabase(config, { log: () => undefined, statementTimeoutMs: 0 });
  log(`database: ${handle.embedded ? 'embedded' : 'DATABASE_URL/' + BENCH_DB}`);
  await ensureSeeded(handle.db, n, log);
  return { config, handle };
}
