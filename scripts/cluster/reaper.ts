import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Starts a reaper (reaper-process.mjs) for the folder `dir`: if `owner` dies without removing
 * `dir`, the reaper stops every process `track` recorded and each Postgres whose data folder is
 * directly under `dir`, and removes `dir`. The cluster (topology.ts) and the tests' own servers
 * (test/helpers/) use it, so a `kill -9` of whatever started them leaves nothing running.
 *
 * `parent`: when it dies, `owner` is killed and reaped too. By default the parent of a process
 * forked with an IPC channel (a jest worker, say): once that parent is gone the child is orphaned
 * work nobody waits for, which would otherwise run on with its servers.
 */
export function startReaper(dir: string, opts: { owner?: number; parent?: number | null } = {}): ChildProcess {
  const owner = opts.owner ?? process.pid;
  const parent = opts.parent !== undefined ? opts.parent : typeof process.send === 'function' ? process.ppid : null;
  fs.mkdirSync(path.join(dir, 'pids'), { recursive: true });
  const reaper = spawn(process.execPath, [path.join(__dirname, 'reaper-process.mjs'), String(owner), dir, ...(parent ? [String(parent)] : [])], { detached: true, stdio: 'ignore' });
  reaper.unref();
  return reaper;
}

/** Records `child` for the reaper of `dir` while it runs. */
export function track<C extends ChildProcess>(dir: string, child: C): C {
  const pid = child.pid;
  if (pid === undefined) return child;
  const file = path.join(dir, 'pids', String(pid));
  fs.writeFileSync(file, '');
  // Forgotten once it exits, so the reaper never signals a number the system gave to someone else.
  child.once('exit', () => fs.rmSync(file, { force: true }));
  return child;
}
