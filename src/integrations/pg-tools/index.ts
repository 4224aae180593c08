import { spawn } from 'node:child_process';
import path from 'node:path';
import { clientFor, findClientTools, PgToolsMissing, serverMajor, type PgClientTools } from './client';

export { clientFor, findClientTools, PgToolsMissing, serverMajor, type PgClientTools } from './client';

/**
 * PostgreSQL's own logical backup tools behind one small port: `pg_dump --format=custom` and
 * `pg_restore`, spawned with the connection in their environment (the password never on a
 * command line, where `ps` would show it). Nothing here reads or writes table data itself.
 */

/** The tool failed: its exit code and the last lines it wrote to stderr. */
export class PgToolFailed extends Error {}

function connection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = '';
  // Archive times are written and read in UTC, so the restore point printed is the same everywhere.
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC', PGAPPNAME: 'crowdfunding-backup', PGCONNECT_TIMEOUT: '30' };
  if (password) env.PGPASSWORD = password;
  return { dbname: u.toString(), env };
}

function run(tools: PgClientTools, program: 'pg_dump' | 'pg_restore', args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(tools.dir, program), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(out).toString());
      const why = err.trim().split('\n').slice(-6).join('\n');
      reject(new PgToolFailed(`${program} (PostgreSQL ${tools.major}) failed with ${signal ?? `exit ${code}`}${why ? `:\n${why}` : ''}`));
    });
  });
}

/** Resolves the client for the server behind `url`, with PG_BIN_DIR first. */
export async function toolsForServer(url: string, binDir?: string): Promise<PgClientTools> {
  return clientFor(await serverMajor(url), binDir);
}

/** `pg_dump --format=custom` of the database behind `url` into `file`. */
export async function pgDump(url: string, file: string, tools: PgClientTools): Promise<void> {
  const { dbname, env } = connection(url);
  await run(tools, 'pg_dump', ['--format=custom', '--no-password', `--file=${file}`, `--dbname=${dbname}`], env);
}

/**
 * `pg_restore` of `file` into the (empty) database behind `url`: in one transaction, stopping
 * at the first error, so a truncated or corrupt archive leaves nothing half restored. Objects
 * are owned by the restoring user and no grants are replayed: the roles of the server the
 * archive came from need not exist on this one.
 */
export async function pgRestore(url: string, file: string, tools: PgClientTools): Promise<void> {
  const { dbname, env } = connection(url);
  await run(tools, 'pg_restore', ['--exit-on-error', '--single-transaction', '--no-owner', '--no-privileges', '--no-password', `--dbname=${dbname}`, file], env);
}

/**
 * When pg_dump started the archive (its snapshot: what a restore brings back), from the header
 * `pg_restore --list` prints; reading the table of contents also rejects a file that is not an
 * archive. The newest client reads every older archive format.
 */
export async function archiveCreatedAt(file: string, binDir?: string): Promise<Date> {
  const tools = findClientTools(binDir)[0];
  if (!tools) throw new PgToolsMissing('no pg_restore found (install postgresql-client, or set PG_BIN_DIR)');
  const list = await run(tools, 'pg_restore', ['--list', file], connection('postgres://localhost/x').env);
  const m = /Archive created at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})/.exec(list);
  if (!m) throw new PgToolFailed(`pg_restore --list ${file}: no creation time in the archive's header`);
  return new Date(`${m[1]}T${m[2]}Z`);
}
