import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../src/infra/free-port';
import { until as pollUntil } from '../../src/infra/until';
import { startReaper, track } from './reaper';

/**
 * The local production topology (docs/operations/cluster.md) on one
 * machine, from Debian's packages: HAProxy (health checks on /readyz) in front of N API
 * processes, M workers, a Postgres primary with one streaming replica (pg_basebackup -R),
 * PgBouncer in transaction mode and a Redis of its own, all in one temporary folder on free
 * ports of 127.0.0.1. Used by `npm run cluster` (scripts/cluster.ts) and by test/cluster/.
 * The apps run from dist/ (one `npm run build`), so N processes do not each compile.
 */

export const ROOT = path.resolve(__dirname, '../..');
const PG_BIN = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((d) => fs.existsSync(path.join(d, 'pg_ctl')));

export interface ClusterOptions {
  /** API processes behind HAProxy (CLUSTER_API, default 3). */
  api?: number;
  /** `npm run worker` processes (CLUSTER_WORKERS, default 2). */
  workers?: number;
  /** HAProxy's port (CLUSTER_PORT); 0 = a free one. */
  port?: number;
  /** Extra environment for every app process. */
  env?: Record<string, string>;
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
  /** The environment the apps run with (the same DATABASE_URL, DATABASE_DIRECT_URL, ... as they see). */
  env: Record<string, string>;
  apiUrl(i: number): string;
  apiPid(i: number): number | null;
  workerPid(i: number): number | null;
  /** SIGTERM to API process i; resolves with its exit code once it has exited. */
  stopApi(i: number): Promise<number | null>;
  startApi(i: number): Promise<void>;
  killApi(i: number): Promise<void>;
  stopWorker(i: number): Promise<number | null>;
  startWorker(i: number): Promise<void>;
  killWorker(i: number): Promise<void>;
  /** HAProxy's view of API process i: 'UP', 'DOWN', 'NOLB', 'MAINT', ... */
  apiState(i: number): Promise<string>;
  /** Waits until HAProxy sees API process i in `state` (default 'UP'). */
  waitApiState(i: number, state?: string, ms?: number): Promise<void>;
  /** Stops the replica with a fast shutdown (its open sessions are ended, as an operator's restart would). */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Runs `sql` on the replica through node-postgres (pg_wal_replay_pause() and friends); answers its rows. */
  replicaSql<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  stop(): Promise<void>;
}

/** What is missing to run the cluster (Debian package names), empty when everything is there. */
export function missingPackages(): string[] {
  const missing: string[] = [];
  const has = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin} || test -x /usr/sbin/${bin}`], { stdio: 'ignore' }).status === 0;
  if (!has('haproxy')) missing.push('haproxy');
  if (!has('pgbouncer')) missing.push('pgbouncer');
  if (!has('redis-server')) missing.push('redis-server');
  if (!PG_BIN) missing.push('postgresql');
  return missing;
}

const bin = (name: string) => ['/usr/sbin', '/usr/bin', '/usr/local/bin'].map((d) => path.join(d, name)).find((p) => fs.existsSync(p)) ?? name;

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.setTimeout(2000, () => (s.destroy(), resolve(false)));
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** Waits as src/infra/until.ts does, with the cluster's defaults (a minute, polled every 100 ms). */
export const until = <T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 60_000, everyMs = 100): Promise<T> =>
  pollUntil(what, fn, ms, everyMs);

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a Postgres binary as the postgres user when we are root (Postgres refuses root). */
function pgCmd(name: string, args: string[]): [string, string[]] {
  const exe = path.join(PG_BIN!, name);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
}

function runPg(name: string, args: string[]): void {
  const [cmd, argv] = pgCmd(name, args);
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
}

function chownPostgres(p: string): void {
  if (asRoot) spawnSync('chown', ['-R', 'postgres:postgres', p]);
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
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    // --- Postgres primary and its streaming replica -------------------------------------------
    const pgPort = await freePort();
    const replicaPort = await freePort();
    const primaryDir = path.join(dir, 'primary');
    const replicaDir = path.join(dir, 'replica');
    const sockDir = path.join(dir, 'sock');
    for (const d of [primaryDir, replicaDir, sockDir]) fs.mkdirSync(d, { mode: 0o700 });
    chownPostgres(dir);
    log(`initdb ${primaryDir}`);
    runPg('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    fs.appendFileSync(
      path.join(primaryDir, 'postgresql.conf'),
      [
        `port = ${pgPort}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${sockDir}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'hot_standby = on',
        'max_connections = 200',
        // A throw-away cluster: durability buys nothing, speed does.
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        '',
      ].join('\n'),
    );
    fs.appendFileSync(path.join(primaryDir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    const pgStart = (d: string) => runPg('pg_ctl', ['-D', d, '-l', path.join(d, 'server.log'), '-w', '-t', '120', 'start']);
    // Immediate for the teardown (a throw-away cluster); fast for a replica stopped under test.
    const pgStop = (d: string, mode: 'immediate' | 'fast' = 'immediate') => {
      const [cmd, argv] = pgCmd('pg_ctl', ['-D', d, '-m', mode, '-w', '-t', '60', 'stop']);
      spawnSync(cmd, argv, { stdio: 'ignore' });
    };
    pgStart(primaryDir);
    cleanups.push(() => pgStop(primaryDir));
    log(`pg_basebackup -R ${replicaDir}`);
    runPg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast']);
    fs.appendFileSync(path.join(replicaDir, 'postgresql.conf'), `port = ${replicaPort}\n`);
    pgStart(replicaDir);
    cleanups.push(() => pgStop(replicaDir));
    const primaryUrl = `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
    const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;

    // --- Redis ------------------------------------------------------------------------------------
    const redisPort = await freePort();
    const redis = track(dir, spawn(bin('redis-server'), ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' }));
    cleanups.push(() => stopChild(redis));
    await until('redis', () => accepts(redisPort), 30_000);
    const redisUrl = `redis://127.0.0.1:${redisPort}`;

    // --- PgBouncer in transaction mode in front of the primary -----------------------------------
    const bouncerPort = await freePort();
    const bdir = path.join(dir, 'pgbouncer');
    fs.mkdirSync(bdir);
    fs.writeFileSync(path.join(bdir, 'users.txt'), '"postgres" ""\n');
    fs.writeFileSync(
      path.join(bdir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=127.0.0.1 port=${pgPort} user=postgres`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${bouncerPort}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${path.join(bdir, 'users.txt')}`,
        'pool_mode = transaction',
        'default_pool_size = 20',
        'max_client_conn = 1000',
        'ignore_startup_parameters = extra_float_digits',
        'server_reset_query =',
        `logfile = ${path.join(bdir, 'pgbouncer.log')}`,
        '',
      ].join('\n'),
    );
    chownPostgres(bdir);
    const bouncer = track(dir, spawn(bin('pgbouncer'), [...(asRoot ? ['-u', 'postgres'] : []), path.join(bdir, 'pgbouncer.ini')], { stdio: 'ignore' }));
    cleanups.push(() => stopChild(bouncer));
    await until('pgbouncer', () => accepts(bouncerPort), 30_000);
    const pooledUrl = `postgres://postgres@127.0.0.1:${bouncerPort}/postgres`;

    // --- The apps -----------------------------------------------------------------------------------
    const haPort = opts.port || (await freePort());
    const url = `http://127.0.0.1:${haPort}`;
    const apiPorts = await Promise.all(Array.from({ length: nApi }, () => freePort()));
    const storage = path.join(dir, 'storage');
    fs.mkdirSync(storage);
    const env: Record<string, string> = {
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATABASE_URL: pooledUrl,
      DATABASE_DIRECT_URL: primaryUrl,
      DATABASE_REPLICA_URLS: replicaUrl,
      REDIS_URL: redisUrl,
      DATA_DIR: path.join(dir, 'data'),
      STORAGE_DIR: storage,
      // HAProxy on loopback adds X-Forwarded-For: the client's address is the one it names.
      TRUST_PROXY: 'loopback',
      STRIPE_WEBHOOK_SECRET: 'whsec_cluster_local_0123456789abcdef',
      // The sandbox processor's signed events go through the balancer like Stripe's would.
      SANDBOX_WEBHOOK_URL: `${url}/api/v1/webhooks/stripe`,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // HAProxy checks every 500 ms and marks a server down after 3 failures (250 ms apart once
      // one failed): about 1 s idle; the default 5 s leaves room for a busy machine.
      SHUTDOWN_DRAIN_MS: '5000',
      LOG_LEVEL: 'warn',
      ...opts.env,
    };
    const childEnv = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dir, ...env, ...extra });
    const logsDir = path.join(dir, 'logs');
    fs.mkdirSync(logsDir);
    const spawnApp = (entry: 'server' | 'worker', name: string, extra: Record<string, string>): ChildProcess => {
      const out = opts.appOutput === 'inherit' ? 'inherit' : fs.openSync(path.join(logsDir, `${name}.log`), 'a');
      const child = track(dir, spawn(process.execPath, [path.join(ROOT, 'dist', 'src', `${entry}.js`)], { cwd: ROOT, env: childEnv(extra), stdio: ['ignore', out, out] }));
      if (typeof out === 'number') fs.closeSync(out);
      return child;
    };
    const apis: Array<ChildProcess | null> = Array.from({ length: nApi }, () => null);
    const workers: Array<ChildProcess | null> = Array.from({ length: nWorkers }, () => null);
    const exitOf = (c: ChildProcess) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve(c.exitCode) : new Promise<number | null>((r) => c.once('exit', (code) => r(code))));
    const apiUrl = (i: number) => `http://127.0.0.1:${apiPorts[i]}`;
    const startApi = async (i: number) => {
      const c = spawnApp('server', `api${i}`, { PORT: String(apiPorts[i]), RUN_JOBS: 'false' });
      apis[i] = c;
      await until(`api${i} /readyz`, async () => {
        if (c.exitCode !== null) throw new Error(`api${i} exited ${c.exitCode} (log: ${path.join(logsDir, `api${i}.log`)})`);
        return (await fetch(`${apiUrl(i)}/readyz`)).status === 200;
      }, 180_000, 200).catch((err) => {
        if (c.exitCode !== null) throw new Error(`api${i} exited ${c.exitCode}: ${tail(path.join(logsDir, `api${i}.log`))}`);
        throw err;
      });
    };
    const startWorker = async (i: number) => {
      workers[i] = spawnApp('worker', `worker${i}`, {});
    };
    const signal = async (c: ChildProcess | null, sig: NodeJS.Signals) => {
      if (!c) return null;
      const exited = exitOf(c);
      c.kill(sig);
      return exited;
    };
    cleanups.push(async () => {
      await Promise.all([...apis, ...workers].map((c) => (c && c.exitCode === null && c.signalCode === null ? signal(c, 'SIGKILL') : null)));
    });

    // Migrations once, by the first API process, before the others start.
    log('npm run build');
    build();
    log('api0 (applies migrations)');
    await startApi(0);
    await Promise.all([...Array.from({ length: nApi - 1 }, (_, k) => startApi(k + 1)), ...Array.from({ length: nWorkers }, (_, k) => startWorker(k))]);

    // --- HAProxy ---------------------------------------------------------------------------------
    const statsPort = await freePort();
    const hcfg = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(hcfg, haproxyConfig(haPort, statsPort, apiPorts));
    const haproxy = track(dir, spawn(bin('haproxy'), ['-db', '-f', hcfg], { stdio: ['ignore', 'ignore', 'pipe'] }));
    let haErr = '';
    haproxy.stderr?.on('data', (d) => (haErr = (haErr + d).slice(-4000)));
    cleanups.unshift(() => undefined);
    cleanups.push(() => stopChild(haproxy));
    await until('haproxy', async () => {
      if (haproxy.exitCode !== null) throw new Error(`haproxy exited: ${haErr}`);
      return accepts(haPort);
    }, 30_000).catch((err) => {
      throw haproxy.exitCode !== null ? new Error(`haproxy exited: ${haErr}`) : err;
    });

    const apiState = async (i: number) => {
      const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
      const row = csv.split('\n').find((l) => l.startsWith(`api,api${i},`));
      if (!row) throw new Error(`no HAProxy row for api${i}`);
      const header = csv.split('\n')[0]!.replace(/^# /, '').split(',');
      return row.split(',')[header.indexOf('status')]!;
    };
    const waitApiState = async (i: number, state = 'UP', ms = 60_000) => {
      await until(`HAProxy to see api${i} ${state}`, async () => (await apiState(i)).startsWith(state), ms, 100);
    };
    await Promise.all(apis.map((_, i) => waitApiState(i)));

    const addresses: Record<string, string> = {
      'HAProxy (the API)': url,
      'HAProxy stats': `http://127.0.0.1:${statsPort}/stats`,
      ...Object.fromEntries(apiPorts.map((p, i) => [`API ${i}`, `http://127.0.0.1:${p}`])),
      'PgBouncer (DATABASE_URL)': pooledUrl,
      'Postgres primary (DATABASE_DIRECT_URL)': primaryUrl,
      'Postgres replica (DATABASE_REPLICA_URLS)': replicaUrl,
      Redis: redisUrl,
      'Temporary folder': dir,
    };
    return {
      url,
      dir,
      addresses,
      env,
      apiUrl,
      apiPid: (i) => apis[i]?.pid ?? null,
      workerPid: (i) => workers[i]?.pid ?? null,
      stopApi: (i) => signal(apis[i]!, 'SIGTERM'),
      startApi,
      killApi: async (i) => void (await signal(apis[i]!, 'SIGKILL')),
      stopWorker: (i) => signal(workers[i]!, 'SIGTERM'),
      startWorker,
      killWorker: async (i) => void (await signal(workers[i]!, 'SIGKILL')),
      apiState,
      waitApiState,
      stopReplica: async () => pgStop(replicaDir, 'fast'),
      startReplica: async () => pgStart(replicaDir),
      replicaSql: async <T>(sql: string) => {
        const client = new Client({ connectionString: replicaUrl, connectionTimeoutMillis: 10_000 });
        await client.connect();
        try {
          return (await client.query(sql)).rows as T[];
        } finally {
          await client.end();
        }
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-3000);
  } catch {
    return '';
  }
}

/** The newest modification time under `dir` (0 when it is missing). */
function newest(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) t = Math.max(t, fs.statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return t;
}

/**
 * `npm run build` once, unless dist/ is newer than every source: even an incremental tsc with
 * nothing to do reads every file, which takes a minute on a busy machine.
 */
function build(): void {
  const info = path.join(ROOT, 'dist', '.tsbuildinfo');
  const sources = ['src', 'migrations', 'seeds'].map((d) => path.join(ROOT, d)).filter((d) => fs.existsSync(d));
  if (fs.existsSync(info) && fs.existsSync(path.join(ROOT, 'dist', 'src', 'server.js')) && Math.max(...sources.map(newest)) < fs.statSync(info).mtimeMs) return;
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!fs.existsSync(tsc)) {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'src', 'server.js'))) throw new Error('dist/ is missing and there is no compiler: run `npm run build`');
    return;
  }
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run build failed: ${r.stdout}${r.stderr}`);
}

async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGTERM');
  const t = setTimeout(() => c.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(t);
}

/**
 * HAProxy: round robin over the API processes, each checked on /readyz every 500 ms (down after
 * 3 failures, up after 2 successes), so a draining process (readyz 503 at SIGTERM, serving for
 * SHUTDOWN_DRAIN_MS) leaves the rotation before it stops accepting. A connection refused (a
 * process killed before the check noticed) is retried on another server (retries + redispatch);
 * only connection failures are retried, never a request a server may have started (a gift).
 * No `on-marked-down shutdown-sessions`: it would cut the requests a draining process finishes.
 */
export function haproxyConfig(port: number, statsPort: number, apiPorts: number[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  option httplog',
    '  timeout connect 2s',
    // Longer than a client's keep-alive idle time (undici: 4 s), so the client closes first.
    '  timeout client 60s',
    '  timeout http-keep-alive 60s',
    '  timeout server 60s',
    '  retries 3',
    '  option redispatch 1',
    'frontend api_in',
    `  bind 127.0.0.1:${port}`,
    '  option forwardfor',
    '  default_backend api',
    'backend api',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    // A check answers within `timeout check` (else HAProxy's default is `inter`: 500 ms, which a
    // busy machine misses on every server at once, leaving none); /readyz itself answers within
    // 800 ms. A draining process answers 503 at once and a killed one refuses at once, so
    // fall 3 x fastinter still leaves the rotation well inside SHUTDOWN_DRAIN_MS.
    '  timeout check 3s',
    '  default-server inter 500ms fastinter 250ms downinter 500ms fall 3 rise 2',
    ...apiPorts.map((p, i) => `  server api${i} 127.0.0.1:${p} check`),
    'listen stats',
    `  bind 127.0.0.1:${statsPort}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ].join('\n');
}
