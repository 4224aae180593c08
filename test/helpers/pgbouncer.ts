import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from './processes';
import { reapedFolder, track } from './reaped';

/**
 * A PgBouncer of our own (Debian's package, 1.18) in transaction mode in front of a Postgres,
 * from a temporary folder on a free port, stock settings but for what a test needs: trust auth,
 * a small pool, and `ignore_startup_parameters` left at extra_float_digits only (the app must not
 * need more). Never the system service.
 */
export interface PgBouncer {
  port: number;
  /** Its temporary folder (configuration, log, the reaper's record of its pid). */
  dir: string;
  /** The pooled URL of `database` on the target server (same user). */
  url(database: string): string;
  /** The pooled twin of a direct URL on the target server (same database and user). */
  pooled(directUrl: string): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** Server connections per (database, user): PgBouncer's default_pool_size. */
  poolSize?: number;
  /** Server connections per database over all users (0 = unlimited). */
  maxDbConnections?: number;
  maxClientConn?: number;
  /**
   * Seconds a server connection may sit unused before PgBouncer closes it (server_idle_timeout;
   * PgBouncer's default is 600). The suite's PgBouncer serves a new database per test file: kept
   * 10 minutes, the finished files' idle connections would fill the server's max_connections.
   */
  serverIdleTimeoutS?: number;
}

const CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

export function pgbouncerBinary(): string | null {
  for (const c of CANDIDATES) if (fs.existsSync(c)) return c;
  const which = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

/** CI (CI=true) and REQUIRE_PGBOUNCER=1 must run the PgBouncer tests; elsewhere they may be skipped. */
export function pgbouncerRequired(): boolean {
  return process.env.CI === 'true' || process.env.REQUIRE_PGBOUNCER === '1';
}

/** Why the PgBouncer tests are skipped here, or null when they can run (throws when they must). */
export function pgbouncerMissing(): string | null {
  if (pgbouncerBinary()) return null;
  const why = 'pgbouncer is not installed (apt-get install -y pgbouncer): the PgBouncer tests are skipped';
  if (pgbouncerRequired()) throw new Error(`${why}, but CI=true / REQUIRE_PGBOUNCER=1 require them`);
  return why;
}


async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Starts PgBouncer in front of the server of `targetUrl` (its host, port, user; any database by name). */
export async function startPgBouncer(targetUrl: string, opts: PgBouncerOptions = {}): Promise<PgBouncer> {
  const bin = pgbouncerBinary();
  if (!bin) throw new Error('pgbouncer is not installed (apt-get install -y pgbouncer)');
  const target = new URL(targetUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  const password = decodeURIComponent(target.password);
  const dir = reapedFolder('cf-pgbouncer-');
  const port = await freePort();
  // The wildcard entry sends each database name to the same-named database on the target.
  const server = `host=${target.hostname} port=${target.port || 5432} user=${user}${password ? ` password=${password}` : ''}`;
  fs.writeFileSync(path.join(dir, 'users.txt'), `"${user}" "${password.replace(/"/g, '""')}"\n`);
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = ${server}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir =`,
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 3}`,
      `max_db_connections = ${opts.maxDbConnections ?? 0}`,
      `max_client_conn = ${opts.maxClientConn ?? 500}`,
      `server_idle_timeout = ${opts.serverIdleTimeoutS ?? 600}`,
      // Stock Debian setting; the app itself must need no other ignored startup parameter.
      'ignore_startup_parameters = extra_float_digits',
      'server_reset_query =',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      'admin_users = ',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as root it is told to switch to the postgres user.
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (asRoot) fs.chmodSync(dir, 0o777);
  const child: ChildProcess = track(dir, spawn(bin, [...(asRoot ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const log = fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : '';
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start on ${port}: ${stderr}${log}`.trim());
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = (database: string) => {
    const u = new URL(targetUrl);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    u.pathname = `/${database}`;
    return u.toString();
  };
  let stopped = false;
  return {
    port,
    dir,
    url,
    pooled: (directUrl) => url(new URL(directUrl).pathname.slice(1)),
    async stop() {
      if (stopped) return;
      stopped = true;
      // SIGINT: PgBouncer's "safe shutdown" waits for clients; SIGTERM closes at once.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
