import { Client } from 'pg';

/**
 * Databases a test makes beside its own on the same server (a copy standing for a backup). They are
 * reached on the server itself, not through the PgBouncer pass's pooler: they are databases of
 * their own, and their job engine needs a session (prepared statements, LISTEN).
 */
export function serverUrlOf(name: string): string {
  const u = new URL(process.env.TEST_DIRECT_DATABASE_URL ?? process.env.TEST_DATABASE_URL!);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One statement on the server's `postgres` database (create or drop a copy). */
export async function serverSql(sql: string): Promise<void> {
  const c = new Client({ connectionString: serverUrlOf('postgres') });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
