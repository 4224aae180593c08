import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { migrateJobSchema } from '../infra/jobs';
import { databaseEndpoints, recordEndpoints } from '../infra/db-endpoints';
import { timeoutEachTransaction } from './pooled-timeouts';
import { queryRows } from '../infra/query-rows';

export { queryRows, toPositional } from '../infra/query-rows';

// bigint columns (counts, sums of cents) come back as JS numbers; cents stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Db = Knex;

export const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/**
 * The migrations, named by their `.ts` file whether the process runs the sources (tsx) or the
 * compiled `.js` beside them (`npm run build`): knex records each name, and a database migrated
 * by either must read as up to date to the other.
 */
export class MigrationFiles implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}
  async getMigrations(): Promise<string[]> {
    const names = fs.readdirSync(this.dir).filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'));
    return [...new Set(names.map((f) => f.replace(/\.js$/, '.ts')))].sort();
  }
  getMigrationName(name: string): string {
    return name;
  }
  async getMigration(name: string): Promise<Knex.Migration> {
    const js = path.join(this.dir, name.replace(/\.ts$/, '.js'));
    return require(fs.existsSync(js) ? js : path.join(this.dir, name));
  }
}

export function migrationConfig(): Knex.MigratorConfig {
  return { migrationSource: new MigrationFiles(MIGRATIONS_DIR), tableName: 'knex_migrations' };
}

export interface DbOptions {
  min?: number;
  max?: number;
  /** Longest wait for a pooled connection (knex's acquire timeout; KnexTimeoutError -> 503). */
  acquireTimeoutMs?: number;
  /** Postgres cancels a statement after this long (0 = never: migrations, the operator CLI). */
  statementTimeoutMs?: number;
  /**
   * A direct connection to the same server (DATABASE_DIRECT_URL): `url` is then a
   * transaction-mode pooler, so the statement timeout goes with each transaction (SET LOCAL),
   * never as a startup parameter, and LISTEN and the job engine use this URL instead.
   */
  directUrl?: string;
}

const quietOutage = (print: (m: unknown) => void) => (m: unknown) => {
  if (!/Acquire connection error|Connection Error|Connection terminated/i.test(String(m))) print(m);
};

/** Extra time the client waits past the statement timeout before it gives up on a silent (frozen) server. */
export const READ_TIMEOUT_SLACK_MS = 1000;

/**
 * A knex pool that never waits forever on Postgres: a bounded acquire (which also bounds making a
 * connection to a server that accepts TCP but never answers), a server-side statement_timeout,
 * and a client-side read timeout a little longer for a server that answers nothing at all.
 */
export function createDb(url: string, pool: DbOptions = {}): Db {
  const acquire = pool.acquireTimeoutMs ?? 60_000;
  const statement = pool.statementTimeoutMs ?? 0;
  const endpoints = databaseEndpoints(url, pool.directUrl);
  const base = { connectionTimeoutMillis: acquire, keepAlive: true };
  const timeouts = statement > 0 ? { statement_timeout: statement, query_timeout: statement + READ_TIMEOUT_SLACK_MS } : {};
  // Through a pooler: only the client-side read timeout as a setting; the server-side one per transaction.
  const pooledTimeouts = statement > 0 ? { query_timeout: statement + READ_TIMEOUT_SLACK_MS } : {};
  const db = knexFactory({
    client: 'pg',
    connection: { connectionString: url, ...base, ...(endpoints.pooled ? pooledTimeouts : timeouts) },
    pool: {
      min: pool.min ?? 0,
      max: pool.max ?? 10,
      createTimeoutMillis: acquire,
      ...(endpoints.pooled && statement > 0
        ? {
            afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
              timeoutEachTransaction(conn, statement);
              done(null, conn);
            },
          }
        : {}),
    },
    acquireConnectionTimeout: acquire,
    migrations: migrationConfig(),
    // knex prints every failed acquire; during an outage the error middleware logs each 503 already.
    log: { warn: quietOutage(console.warn), error: quietOutage(console.error), deprecate: (m: string) => console.warn(m), debug: () => undefined },
  });
  recordEndpoints(db, { ...endpoints, direct: { connectionString: endpoints.directUrl, ...base, ...timeouts } });
  return db;
}

/** Migration files not yet applied to the database (knex_migrations); a missing table counts them all. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const files = await new MigrationFiles(MIGRATIONS_DIR).getMigrations();
  const exists = await queryRows<{ t: string | null }>(db, `select to_regclass('knex_migrations')::text as t`, []);
  if (!exists[0]?.t) return files;
  const done = new Set((await queryRows<{ name: string }>(db, 'select name from knex_migrations', [])).map((r) => r.name.replace(/\.js$/, '.ts')));
  return files.filter((f) => !done.has(f));
}

export async function migrateLatest(db: Db): Promise<string[]> {
  // graphile-worker's own schema first: a migration moves the old queue's waiting jobs into it.
  await migrateJobSchema(db);
  const [, applied] = await db.migrate.latest(migrationConfig());
  return applied as string[];
}
