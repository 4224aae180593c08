/** The real API process (`node --import tsx src/server.ts`, as `npm start`) on a bench database, loopback only. */
import { spawn, type ChildProcess } from 'node:child_process';
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
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: path.resolve(__dirname, '..'),
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`API exited with ${code}`))));
  const ready = (async () => {
    for (let i = 0; i < 600; i++) {
      const ok = await fetch(`${base}/readyz`).then((r) => r.status === 200, () => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('API not ready after 60 s');
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
