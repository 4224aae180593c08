import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

/** The project's root, where `npm start` and `npm run admin` run. */
export const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

/** A TCP port that was free on 127.0.0.1 a moment ago (one copy for src, scripts, bench and tests). */
export { freePort } from '../../src/infra/free-port';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the operator CLI (what `npm run admin -- ...` runs) against the test file's database. */
export function admin(...args: string[]): Promise<CliResult> {
  return adminWith({}, ...args);
}

/** admin() with more environment (BACKUP_DIR, ...). */
export function adminWith(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return outputOf(
    spawn(TSX, ['src/cli/admin.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_DIRECT_URL: process.env.TEST_DIRECT_DATABASE_URL, LOG_LEVEL: 'silent', ...env },
    }),
  );
}

/** What a child process printed and how it ended, once it has closed. */
export function outputOf(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export { until } from '../../src/infra/until';

/**
 * How many times slower than an idle machine this one runs now: runnable tasks per core over
 * the last minute, never below 1. Tests whose contract is a latency bound (an outage answered
 * within N ms) scale N by it, so a laptop busy with other work checks the same mechanism
 * instead of its own load; an unbounded answer (a hang) still fails.
 */
export function machineSlowdown(): number {
  const perCore = os.loadavg()[0]! / Math.max(1, os.availableParallelism());
  return Math.max(1, Math.min(10, perCore));
}
