import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { Client } from 'pg';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/infra/free-port';
import { configureBackups, type Backups } from './backups';
import { apiProcessEnv, appEnv, build, defaultEnv, ownedEnv, spawnApp, Supervised, type RestartPolicy } from './apps';
import { PG_BIN, startPostgres } from './postgres';
import { startProxy } from './proxy';
import { startReaper, track } from './reaper';
import { startPgBouncer, startRedis } from './services';
import { stopChild, tail, until } from './util';

/**
 * The local production topology (docs/operations/cluster.md) on one machine, from
 * Debian's packages: HAProxy (health checks on /readyz) in front of N API processes, M workers,
 * a Postgres primary with one streaming replica (postgres.ts), PgBouncer in transaction mode and
 * a Redis of its own (services.ts), all in one temporary folder on free ports of 127.0.0.1.
 * The apps (apps.ts) get their user's settings but those the topology owns, and are started
 * again when they die. Used by `npm run cluster` (scripts/cluster.ts) and by test/cluster/.
 */

export { until } from './util';

export interface ClusterOptions {
  /** API processes behind HAProxy (CLUSTER_API, default 3). */
  api?: number;
  /** `npm run worker` processes (CLUSTER_WORKERS, default 2). */
  workers?: number;
  /** HAProxy's port (CLUSTER_PORT); 0 = a free one. */
  port?: number;
  /**
   * The user's settings, passed to every app but those the topology owns (default: this
   * process's environment, as `npm run cluster` runs).
   */
  userEnv?: NodeJS.ProcessEnv;
  /** Extra postgresql.conf lines for the primary (after the cluster's own). */
  postgresSettings?: string[];
  /** How a process that died is started again (apps.ts RESTART_POLICY by default). */
  restartPolicy?: RestartPolicy;
  /** Where the apps' output goes: 'inherit' (npm run cluster) or a log file per process in the temp folder. */
  appOutput?: 'inherit' | 'files';
  log?: (line: string) => void;
}

export interface Cluster {
  /** HAProxy's address: what clients use. */
  url: string;
  dir: string;
  /** Every address, by name (printed by `npm run cluster`). */
  addresses: Record<string, string>;
  /** The environment the apps share (the same DATABASE_URL, DATABASE_DIRECT_URL, ... as they see). */
  env: Record<string, string>;
  apiUrl(i: number): string;
  apiPid(i: number): number | null;
  workerPid(i: number): number | null;
  /** SIGTERM to API process i, which is not started again; resolves with its exit code once it has exited. */
  stopApi(i: number): Promise<number | null>;
  /** Starts API process i (unless it runs) and waits until it is ready. */
  startApi(i: number): Promise<void>;
  /** SIGKILL to API process i, as a crash would: resolves once it has exited; it is started again. */
  killApi(i: number): Promise<void>;
  /**
   * Replaces API process i with no failed request: out of HAProxy's rotation, SIGTERM (it drains
   * and exits), a new one started, back in once HAProxy sees it UP.
   */
  restartApi(i: number): Promise<void>;
  /** restartApi for each API process in turn (what SIGHUP to `npm run cluster` does). */
  rollingRestart(): Promise<void>;
  /**
   * Changes settings of the processes started from now on (a rolled secret, say): a rolling
   * restart brings them to every API process, as a changed unit file and a restart would.
   */
  setAppEnv(changes: Record<string, string>): void;
  stopWorker(i: number): Promise<number | null>;
  startWorker(i: number): Promise<void>;
  killWorker(i: number): Promise<void>;
  /** HAProxy's view of API process i: 'UP', 'DOWN', 'DRAIN', 'MAINT', ... */
  apiState(i: number): Promise<string>;
  /** Waits until HAProxy sees API process i in `state` (default 'UP'). */
  waitApiState(i: number, state?: string, ms?: number): Promise<void>;
  /** Stops the replica with a fast shutdown (its open sessions are ended, as an operator's restart would). */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Runs `sql` on the replica through node-postgres (pg_wal_replay_pause() and friends); answers its rows. */
  replicaSql<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** The primary's data folder (what a lost disk loses). */
  primaryDir: string;
  /** Stops the primary: immediate (a lost machine) by default. */
  stopPrimary(mode?: 'immediate' | 'fast'): void;
  /** Starts the primary on its (restored) folder; resolves once recovery has ended and it takes writes. */
  startPrimary(): Promise<void>;
  /** The replica removed and cloned again from the primary (pg_basebackup -R), then started. */
  recloneReplica(): void;
  /** pgBackRest's configuration, repository and stanza for the primary (scripts/cluster/backups.ts). */
  backups: Backups;
  stop(): Promise<void>;
}

/** What is missing to run the cluster (Debian package names), empty when everything is there. */
export function missingPackages(): string[] {
  const missing: string[] = [];
  const has = (name: string) => spawnSync('sh', ['-c', `command -v ${name} || test -x /usr/sbin/${name}`], { stdio: 'ignore' }).status === 0;
  if (!has('haproxy')) missing.push('haproxy');
  if (!has('pgbouncer')) missing.push('pgbouncer');
  if (!has('redis-server')) missing.push('redis-server');
  if (!PG_BIN) missing.push('postgresql');
  if (!has('pgbackrest')) missing.push('pgbackrest');
  return missing;
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const missing = missingPackages();
  if (missing.length) throw new Error(`the cluster needs Debian packages that are missing: apt-get install -y ${missing.join(' ')}`);
  const log = opts.log ?? (() => undefined);
  const nApi = opts.api ?? 3;
  const nWorkers = opts.workers ?? 2;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-cluster-'));
  fs.chmodSync(dir, 0o755);
  // Stops it all should this process die without calling stop() (kill -9, a killed test worker).
  startReaper(dir);
  const cleanups: Array<() => Promise<void> | void> = [];
  const supervised: Supervised[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // First, before anything is awaited: an app that exits from here on (Ctrl-C reaches them too) is not started again.
    await Promise.all(supervised.map((a) => a.stop('SIGKILL')));
    for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    // pgBackRest's configuration names the primary's port, and its archive_command must find it
    // from the first WAL segment on: both are settled before the primary starts.
    const primaryPort = await freePort();
    const backups = configureBackups(dir, primaryPort, path.join(dir, 'sock'), path.join(dir, 'primary'));
    const pg = await startPostgres(dir, { extraSettings: [...backups.postgresSettings, ...(opts.postgresSettings ?? [])], primaryPort, log });
    cleanups.push(() => pg.stop());
    log(`pgbackrest stanza-create, check (stanza ${backups.stanza}, repository ${backups.repoPath})`);
    backups.run(['stanza-create']);
    backups.run(['check']);
    const redis = await startRedis(dir);
    cleanups.push(() => stopChild(redis.child));
    const bouncer = await startPgBouncer(dir, Number(new URL(pg.primaryUrl).port));
    cleanups.push(() => stopChild(bouncer.child));

    // --- The apps -----------------------------------------------------------------------------------
    const haPort = opts.port || (await freePort());
    const url = `http://127.0.0.1:${haPort}`;
    const apiPorts = await Promise.all(Array.from({ length: nApi }, () => freePort()));
    const owned = { ...ownedEnv({ url, pooledUrl: bouncer.url, primaryUrl: pg.primaryUrl, replicaUrl: pg.replicaUrl, redisUrl: redis.url }), ...backups.env };
    const { env, ignored } = appEnv(opts.userEnv ?? process.env, defaultEnv(dir, url), owned);
    if (ignored.length) log(`not used (the cluster sets them): ${ignored.join(', ')}`);
    for (const d of [env.STORAGE_DIR!, path.join(dir, 'logs')]) fs.mkdirSync(d, { recursive: true });
    const logOf = (name: string) => path.join(dir, 'logs', `${name}.log`);
    const supervise = (entry: 'server' | 'worker', name: string, extra: Record<string, string>) =>
      new Supervised(name, () => track(dir, spawnApp(entry, { ...env, ...extra }, opts.appOutput === 'inherit' ? 'inherit' : logOf(name))), log, opts.restartPolicy);
    const apis = apiPorts.map((p, i) => supervise('server', `api${i}`, apiProcessEnv(p)));
    const workers = Array.from({ length: nWorkers }, (_, i) => supervise('worker', `worker${i}`, {}));
    supervised.push(...apis, ...workers);
    const apiUrl = (i: number) => `http://127.0.0.1:${apiPorts[i]}`;
    /** Starts api i and waits for its /readyz; `supervised`: one that exits meanwhile is left to its supervisor. */
    const startApi = async (i: number, supervised = true) => {
      const c = apis[i]!.start();
      await until(`api${i} /readyz`, async () => {
        if (c.exitCode !== null && !supervised) throw new Error(`api${i} exited ${c.exitCode}`);
        return (await fetch(`${apiUrl(i)}/readyz`)).status === 200;
      }, 180_000, 200).catch(async (err) => {
        if (c.exitCode === null || supervised) throw err;
        await apis[i]!.stop();
        throw new Error(`api${i} exited ${c.exitCode}: ${tail(logOf(`api${i}`))}`);
      });
    };

    // Migrations once, by the first API process, before the others start.
    log('npm run build');
    build();
    log('api0 (applies migrations)');
    await startApi(0, false);
    await Promise.all(Array.from({ length: nApi - 1 }, (_, k) => startApi(k + 1, false)));
    for (const w of workers) w.start();

    const proxy = await startProxy(dir, haPort, apiPorts);
    cleanups.push(() => stopChild(proxy.child));
    await Promise.all(apis.map((_, i) => proxy.waitApiState(i)));
    log('pgbackrest backup --type=full');
    backups.run(['--type=full', 'backup']);

    let rolling: Promise<void> | null = null;
    const restartApi = async (i: number) => {
      log(`api${i}: out of the rotation, stopping`);
      await proxy.setApiAdminState(i, 'drain');
      try {
        const code = await apis[i]!.stop('SIGTERM');
        if (code !== 0) log(`api${i} exited ${code} on SIGTERM`);
        await startApi(i);
      } finally {
        await proxy.setApiAdminState(i, 'ready');
      }
      await proxy.waitApiState(i, 'UP', 180_000);
      log(`api${i}: restarted (pid ${apis[i]!.pid}), UP`);
    };
    const rollingRestart = () => {
      // A second request while one rolls joins it rather than stopping two processes at once.
      rolling ??= (async () => {
        for (let i = 0; i < nApi; i += 1) await restartApi(i);
      })().finally(() => (rolling = null));
      return rolling;
    };

    const addresses: Record<string, string> = {
      'HAProxy (the API)': url,
      'HAProxy stats': proxy.statsUrl,
      ...Object.fromEntries(apiPorts.map((p, i) => [`API ${i}`, `http://127.0.0.1:${p}`])),
      'PgBouncer (DATABASE_URL)': bouncer.url,
      'Postgres primary (DATABASE_DIRECT_URL)': pg.primaryUrl,
      'Postgres replica (DATABASE_REPLICA_URLS)': pg.replicaUrl,
      Redis: redis.url,
      [`pgBackRest repository (stanza ${backups.stanza})`]: backups.repoPath,
      'pgBackRest config (PGBACKREST_CONFIG)': backups.config,
      'Temporary folder': dir,
    };
    return {
      url,
      dir,
      addresses,
      env,
      apiUrl,
      apiPid: (i) => apis[i]!.pid,
      workerPid: (i) => workers[i]!.pid,
      stopApi: (i) => apis[i]!.stop('SIGTERM'),
      startApi: (i) => startApi(i),
      killApi: (i) => apis[i]!.kill(),
      restartApi,
      rollingRestart,
      setAppEnv: (changes) => void Object.assign(env, changes),
      stopWorker: (i) => workers[i]!.stop('SIGTERM'),
      startWorker: async (i) => void workers[i]!.start(),
      killWorker: (i) => workers[i]!.kill(),
      apiState: proxy.apiState,
      waitApiState: proxy.waitApiState,
      stopReplica: async () => pg.stopReplica(),
      startReplica: async () => pg.startReplica(),
      replicaSql: pg.replicaSql,
      primaryDir: pg.primaryDir,
      stopPrimary: (mode) => pg.stopPrimary(mode),
      startPrimary: async () => {
        pg.startPrimary();
        // Started on a restored folder it replays the archive first (read-only meanwhile); a
        // recovery that fails (a target the archive does not reach) stops the server: said at once.
        const recovered = async () => {
          const c = new Client({ connectionString: pg.primaryUrl, connectionTimeoutMillis: 10_000 });
          await c.connect();
          try {
            return (await c.query<{ r: boolean }>('select pg_is_in_recovery() as r')).rows[0]!.r === false;
          } finally {
            await c.end();
          }
        };
        await until('the primary to end recovery', async () => {
          if (!pg.primaryRunning()) return 'stopped';
          return recovered();
        }, 300_000, 250).then((v) => {
          if (v === 'stopped') throw new Error(`the primary stopped during recovery: ${tail(path.join(pg.primaryDir, 'server.log'))}`);
        });
      },
      recloneReplica: () => pg.recloneReplica(),
      backups,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
