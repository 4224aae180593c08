import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReaper, track } from '../../scripts/cluster/reaper';

/**
 * The tests' servers are left to the cluster's reaper (scripts/cluster/reaper.ts), so that a
 * killed test run (`kill -9` of jest, or of the worker running a file) leaves nothing running:
 * a helper that starts servers in a folder of its own starts a reaper for that folder
 * (`reapedFolder`); any other child a test starts is handed to `reaped`, which records it in
 * one folder per test process, reaped once that process is gone.
 */

/** A new temporary folder with a reaper: its processes (`track`) and the Postgres directly under it. */
export function reapedFolder(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  startReaper(dir);
  return dir;
}

/**
 * This process's folder for children that have none of their own. Named after the pid so every
 * test file of a jest worker (each a fresh module registry) shares one reaper; the reaper
 * removes it once the process is gone, so an existing folder always has its reaper.
 */
function processFolder(): string {
  const dir = path.join(os.tmpdir(), `cf-test-children-${process.pid}`);
  if (!fs.existsSync(path.join(dir, 'pids'))) {
    fs.mkdirSync(dir, { recursive: true });
    startReaper(dir);
  }
  return dir;
}

/** Records `child` (a server a test started) so it is killed if this test process dies first. */
export function reaped<C extends ChildProcess>(child: C): C {
  return track(processFolder(), child);
}

export { track };
