import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { until as pollUntil } from '../../src/infra/until';

/** What the cluster's parts share: where Debian puts things, waiting on ports, stopping children. */

export const ROOT = path.resolve(__dirname, '../..');

export const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** A Debian binary by name (sbin first: haproxy and pgbouncer live there), else the bare name for PATH. */
export const bin = (name: string) => ['/usr/sbin', '/usr/bin', '/usr/local/bin'].map((d) => path.join(d, name)).find((p) => fs.existsSync(p)) ?? name;

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function accepts(port: number): Promise<boolean> {
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

export function chownPostgres(p: string): void {
  if (asRoot) spawnSync('chown', ['-R', 'postgres:postgres', p]);
}

/** Resolves once `c` has exited (at once when it already has), with its exit code. */
export const exitOf = (c: ChildProcess): Promise<number | null> =>
  c.exitCode !== null || c.signalCode !== null ? Promise.resolve(c.exitCode) : new Promise((r) => c.once('exit', (code) => r(code)));

/** SIGTERM, then SIGKILL after 5 s. */
export async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = exitOf(c);
  c.kill('SIGTERM');
  const t = setTimeout(() => c.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(t);
}

/** The last few KB of a log file, for an error message ('' when it is missing). */
export function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-3000);
  } catch {
    return '';
  }
}

/**
 * Whether this process still has its terminal. Closing a terminal sends SIGHUP, as `kill -HUP`
 * does, but only then is the terminal gone (opening /dev/tty fails): the signal then means
 * "stop", not "roll the API processes".
 */
export function hasTerminal(): boolean {
  try {
    fs.closeSync(fs.openSync('/dev/tty', 'r'));
    return true;
  } catch {
    return false;
  }
}
