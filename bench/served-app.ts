import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** A process's CPU time so far (ms, user + system) from /proc; at 100 ticks a second. */
export function cpuMsOf(pid: number | undefined): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

export interface ServedApp {
  child: ChildProcess;
  port: number;
  /** A signed-in viewer's ID token (the bench viewer). */
  token: string;
}

/**
 * The API as `npm start` serves it (bench/compare-servers.ts serveApp, through compare.ts) on
 * `databaseUrl`, its own 10-connection pool; `env` adds settings (READ_CACHE=false, BENCH_LOG_LEVEL).
 */
export function startServedApp(databaseUrl: string, env: Record<string, string> = {}): Promise<ServedApp> {
  const child = spawn(process.execPath, ['--import', 'tsx', `${__dirname}/compare.ts`, 'app'], {
    env: { ...process.env, ...env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`app exited with ${code}`)));
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /port=(\d+)/.exec(out);
      const t = /token=(\S+)/.exec(out);
      if (m && t) {
        // Request log lines may follow (BENCH_LOG_LEVEL): drained, not kept.
        child.stdout!.removeAllListeners('data').resume();
        resolve({ child, port: Number(m[1]), token: t[1]! });
      }
    });
  });
}
