import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Starts the cluster's reaper (reaper-process.mjs) for the cluster folder `dir`: if `owner` dies without
 * stopping the cluster, the reaper stops every process `track` recorded and each Postgres whose
 * data folder is directly under `dir`, and removes `dir`.
 */
export function startReaper(dir: string, owner: number = process.pid): ChildProcess {
  fs.mkdirSync(path.join(dir, 'pids'), { recursive: true });
  const reaper = spawn(process.execPath, [path.join(__dirname, 'reaper-process.mjs'), String(owner), dir], { detached: true, stdio: 'ignore' });
  reaper.unref();
  return reaper;
}

/** Records `child` for the reaper while it runs. */
export function track(dir: string, child: ChildProcess): ChildProcess {
  const pid = child.pid;
  if (pid === undefined) return child;
  const file = path.join(dir, 'pids', String(pid));
  fs.writeFileSync(file, '');
  // Forgotten once it exits, so the reaper never signals a number the system gave to someone else.
  child.once('exit', () => fs.rmSync(file, { force: true }));
  return child;
}
