import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import pg from 'pg';

// bigint columns (counts, sums of cents) come back as JS numbers; cents stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Db = Knex;

export const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

export function migrationConfig(): Knex.MigratorConfig {
  return { directory: MIGRATIONS_DIR, loadExtensions: ['.ts', '.js'], tableName: 'knex_migrations' };
}

export function createDb(url: string, pool: { min?: number; max?: number } = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    migrations: migrationConfig(),
  });
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = await db.migrate.latest(migrationConfig());
  return applied as string[];
}
