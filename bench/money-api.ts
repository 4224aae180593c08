/** The real API process, started as `npm start` starts it, on a bench database, loopback only. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../src/infra/free-port';

export const WEBHOOK_SECRET = 'whsec_bench_money_0123456789abcdef';

export interface Api {
  child: ChildProcess;
  base: string;
  stop(): Promise<void>;
}

/**
 * Production mode, sandbox processor (no STRIPE_SECRET_KEY) with a fixed signing secret the
 * bench signs with, jobs off (events and mails are queued in the settling transaction; their
 * delivery is the worker's, not measured), proxy trusted so each request's X-Forwarded-For is
 * its own client for the per-IP limiters.
 */
export async function startApi(databaseUrl: string, extra: Record<string, string> = {}): Promise<Api> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  Object.assign(env, {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    RUN_JOBS: 'false',
    TRUST_PROXY: 'loopback',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...extra,
  });
  const root = path.resolve(__dirname, '..');
  const child = spawn(process.execPath, startArgs(root), {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`API exited with ${code}`))));
  const ready = (async () => {
    // The first start compiles the sources (as `npm start` does), later ones find dist/ current.
    for (let i = 0; i < 1800; i++) {
      const ok = await fetch(`${base}/readyz`).then((r) => r.status === 200, () => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('API not ready after 180 s');
  })();
  await Promise.race([ready, exited]);
  exited.catch(() => undefined);
  return {
    child,
    base,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * `npm start`'s own node flags and entry (package.json), so a bench measures the compiled service
 * with its garbage-collector settings, not the sources through tsx with node's defaults.
 */
function startArgs(root: string): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const m = /^exec node (.+)$/.exec(pkg.scripts.start!.trim());
  if (!m) throw new Error(`package.json's start script is not "exec node ...": ${pkg.scripts.start}`);
  return m[1]!.split(/\s+/);
}
