import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { backupsEnv } from './backups';
import { exitOf, ROOT } from './util';

/**
 * The cluster's own processes (API and worker): the environment each gets, the build they run
 * from, and their supervision: one that dies without the cluster stopping it is started again,
 * as systemd's Restart=always or a Kubernetes Deployment would, after a delay that doubles while
 * it keeps dying young (a crash loop), so a broken setting costs a line a while, not a busy core.
 */

/** Where the topology's services are, from which it derives the settings it owns. */
export interface Addresses {
  url: string;
  pooledUrl: string;
  primaryUrl: string;
  replicaUrl: string;
  redisUrl: string;
}

/** Settings every app gets from the topology, whatever its user's environment says. */
export function ownedEnv(a: Addresses): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PUBLIC_URL: a.url,
    DATABASE_URL: a.pooledUrl,
    DATABASE_DIRECT_URL: a.primaryUrl,
    DATABASE_REPLICA_URLS: a.replicaUrl,
    REDIS_URL: a.redisUrl,
    // HAProxy on loopback adds X-Forwarded-For: the client's address is the one it names.
    TRUST_PROXY: 'loopback',
  };
}

/** Settings each API process gets from the topology on top of ownedEnv (owned as well). */
export function apiProcessEnv(port: number): Record<string, string> {
  return { PORT: String(port), RUN_JOBS: 'false' };
}

/** Every setting the topology owns: a user's value of one of these is not used. */
export function ownedKeys(): string[] {
  const any = 'x';
  return [...Object.keys(ownedEnv({ url: any, pooledUrl: any, primaryUrl: any, replicaUrl: any, redisUrl: any })), ...Object.keys(apiProcessEnv(0)), ...Object.keys(backupsEnv(any, any))];
}

/** What the topology sets unless its user does. */
export function defaultEnv(dir: string, url: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    DATA_DIR: path.join(dir, 'data'),
    STORAGE_DIR: path.join(dir, 'storage'),
    STRIPE_WEBHOOK_SECRET: 'whsec_cluster_local_0123456789abcdef',
    // The sandbox processor's signed events go through the balancer like Stripe's would.
    SANDBOX_WEBHOOK_URL: `${url}/api/v1/webhooks/stripe`,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // HAProxy checks every 500 ms and marks a server down after 3 failures (250 ms apart once
    // one failed): about 1 s idle; the default 5 s leaves room for a busy machine.
    SHUTDOWN_DRAIN_MS: '5000',
    LOG_LEVEL: 'warn',
  };
}

/**
 * The environment the apps share: the topology's defaults, then every setting of the user's
 * environment (mail, Stripe keys, identity providers, CAPTCHA, log level, ...), then what the
 * topology owns. `ignored` names the user's settings that the topology overrode.
 */
export function appEnv(user: NodeJS.ProcessEnv, defaults: Record<string, string>, owned: Record<string, string>): { env: Record<string, string>; ignored: string[] } {
  const mine = new Set([...Object.keys(owned), ...ownedKeys()]);
  const passed = Object.entries(user).filter((e): e is [string, string] => e[1] !== undefined && !mine.has(e[0]));
  const ignored = Object.keys(user).filter((k) => mine.has(k) && user[k] !== undefined && user[k] !== owned[k]);
  return { env: { ...defaults, ...Object.fromEntries(passed), ...owned }, ignored };
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
 * nothing to do reads every file, which takes a minute on a busy machine. The apps run from
 * dist/ so that N processes do not each compile.
 */
export function build(): void {
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

/** Spawns `node dist/src/<entry>.js` with `env`, its output to the terminal or to `logFile`. */
export function spawnApp(entry: 'server' | 'worker', env: Record<string, string>, logFile: string | 'inherit'): ChildProcess {
  const out = logFile === 'inherit' ? 'inherit' : fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', `${entry}.js`)], { cwd: ROOT, env, stdio: ['ignore', out, out] });
  if (typeof out === 'number') fs.closeSync(out);
  return child;
}

export interface RestartPolicy {
  /** The first delay before starting a process that died again (doubles per death in a row). */
  delayMs: number;
  maxDelayMs: number;
  /** A process that ran at least this long was not crash-looping: the delay starts over. */
  healthyAfterMs: number;
}

export const RESTART_POLICY: RestartPolicy = { delayMs: 500, maxDelayMs: 30_000, healthyAfterMs: 10_000 };

/** One supervised process: started by `start`, started again when it dies, until `stop`. */
export class Supervised {
  child: ChildProcess | null = null;
  private wanted = false;
  private deathsInARow = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly name: string,
    private readonly spawnIt: () => ChildProcess,
    private readonly log: (line: string) => void,
    private readonly policy: RestartPolicy = RESTART_POLICY,
  ) {}

  get pid(): number | null {
    const c = this.child;
    return c && c.exitCode === null && c.signalCode === null ? (c.pid ?? null) : null;
  }

  /** Starts it unless it runs (or is about to be started again); answers the process. */
  start(): ChildProcess {
    this.wanted = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pid !== null) return this.child!;
    const child = this.spawnIt();
    const startedAt = Date.now();
    this.child = child;
    child.once('exit', (code, signal) => {
      if (!this.wanted || this.child !== child) return;
      this.deathsInARow = Date.now() - startedAt >= this.policy.healthyAfterMs ? 1 : this.deathsInARow + 1;
      const delay = Math.min(this.policy.maxDelayMs, this.policy.delayMs * 2 ** (this.deathsInARow - 1));
      this.log(`${this.name} (pid ${child.pid}) ${signal ? `was killed (${signal})` : `exited ${code}`}; starting it again in ${delay / 1000} s`);
      this.timer = setTimeout(() => {
        this.timer = null;
        if (this.wanted) this.start();
      }, delay);
    });
    return child;
  }

  /** Signals it and no longer starts it again; resolves with its exit code once it has exited. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    this.wanted = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const c = this.child;
    if (!c || this.pid === null) return c?.exitCode ?? null;
    const exited = exitOf(c);
    c.kill(signal);
    return exited;
  }

  /** SIGKILL, as a crash would: it is started again. Resolves once it has exited. */
  async kill(): Promise<void> {
    const c = this.child;
    if (!c || this.pid === null) return;
    const exited = exitOf(c);
    c.kill('SIGKILL');
    await exited;
  }
}
