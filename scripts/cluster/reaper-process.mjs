// The cluster's reaper (scripts/cluster/reaper.ts starts it): a plain Node process, detached from
// the one that started the cluster, that stops what the cluster left behind when that process
// dies without stopping it (kill -9, a jest worker killed at its timeout, a closed terminal).
// Every 500 ms: the cluster's folder gone means it was stopped normally, so the reaper exits; its
// owner gone means nobody will stop it, so the reaper kills every process recorded under pids/,
// shuts each Postgres down (SIGQUIT to the postmaster: its immediate shutdown), removes the
// folder and exits. The owner's parent, when given, gone: the owner is orphaned (a jest worker
// whose jest was killed runs its file on), so the reaper kills it first and reaps the same way.
//
//   node reaper-process.mjs <owner pid> <folder> [<owner's parent pid>]
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { clearInterval, setInterval, setTimeout } from 'node:timers';

const owner = Number(process.argv[2]);
const dir = process.argv[3];
const parent = process.argv[4] ? Number(process.argv[4]) : null;

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

const kill = (pid, signal) => {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
};

const entries = (d) => {
  try {
    return fs.readdirSync(d);
  } catch {
    return [];
  }
};

function postmasters() {
  const pids = [];
  for (const sub of entries(dir)) {
    try {
      pids.push(Number(fs.readFileSync(path.join(dir, sub, 'postmaster.pid'), 'utf8').split('\n')[0]));
    } catch {
      // not a data folder, or its server is not running
    }
  }
  return pids.filter((pid) => Number.isInteger(pid) && pid > 0);
}

async function reap() {
  for (const f of entries(path.join(dir, 'pids'))) kill(Number(f), 'SIGKILL');
  const pg = postmasters();
  for (const pid of pg) kill(pid, 'SIGQUIT');
  for (let i = 0; i < 40 && pg.some(alive); i += 1) await new Promise((r) => setTimeout(r, 250));
  for (const pid of pg) kill(pid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
}

const timer = setInterval(() => {
  if (!fs.existsSync(dir)) process.exit(0);
  if (parent && !alive(parent)) kill(owner, 'SIGKILL');
  else if (alive(owner)) return;
  clearInterval(timer);
  void reap().finally(() => process.exit(0));
}, 500);
