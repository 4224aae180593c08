import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReaper, track } from '../../scripts/cluster/reaper';
import { until } from '../helpers/processes';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleeper = () => spawn('sleep', ['600'], { stdio: 'ignore' });
const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

// The reaper stops what a cluster (scripts/cluster/topology.ts) left behind when the process that
// started it died without stopping it. Stand-ins: `sleep` processes for the tracked services and
// for a postmaster (its pid in postmaster.pid, where Postgres writes it).
describe('the cluster reaper', () => {
  const spawned: ChildProcess[] = [];
  afterAll(() => {
    for (const c of spawned) c.kill('SIGKILL');
  });

  function cluster(parent: ChildProcess | null = null) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-reaper-test-'));
    const owner = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const services = [sleeper(), sleeper()];
    const postmaster = sleeper();
    spawned.push(owner, ...services, postmaster);
    fs.mkdirSync(path.join(dir, 'primary'));
    fs.writeFileSync(path.join(dir, 'primary', 'postmaster.pid'), `${postmaster.pid}\n/tmp/primary\n`);
    const reaper = startReaper(dir, { owner: owner.pid, parent: parent?.pid ?? null });
    for (const s of services) track(dir, s);
    return { dir, owner, services, postmaster, reaper };
  }

  test('when the owner is killed, every tracked process and the postmaster stop and the folder is removed', async () => {
    const c = cluster();
    c.owner.kill('SIGKILL');
    await until('the reaper to stop everything', () => [...c.services, c.postmaster].every((p) => !alive(p.pid!) || p.exitCode !== null || p.signalCode !== null) && !fs.existsSync(c.dir), 60_000);
    await Promise.all([...c.services, c.postmaster].map(exited));
    expect(c.postmaster.signalCode).toBe('SIGQUIT');
    expect(c.services.map((s) => s.signalCode)).toEqual(['SIGKILL', 'SIGKILL']);
  });

  test("when the owner's parent is killed (a jest whose worker runs on), the orphaned owner is killed and everything reaped", async () => {
    const parent = sleeper();
    spawned.push(parent);
    const c = cluster(parent);
    parent.kill('SIGKILL');
    await Promise.all([c.owner, ...c.services, c.postmaster].map(exited));
    await until('the folder to be removed', () => !fs.existsSync(c.dir), 60_000);
    expect(c.owner.signalCode).toBe('SIGKILL');
    expect(c.postmaster.signalCode).toBe('SIGQUIT');
    expect(c.services.map((s) => s.signalCode)).toEqual(['SIGKILL', 'SIGKILL']);
  });

  test('when the cluster is stopped normally (its folder removed), the reaper leaves and signals nothing', async () => {
    const c = cluster();
    fs.rmSync(c.dir, { recursive: true, force: true });
    await until('the reaper to exit', () => !alive(c.reaper.pid!), 60_000);
    c.owner.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 1500));
    expect([...c.services, c.postmaster].every((p) => p.exitCode === null && p.signalCode === null)).toBe(true);
  });

  test('a tracked process that exits is forgotten, so its number is never signalled', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-reaper-test-'));
    fs.mkdirSync(path.join(dir, 'pids'));
    const s = track(dir, sleeper());
    expect(fs.readdirSync(path.join(dir, 'pids'))).toEqual([String(s.pid)]);
    s.kill('SIGTERM');
    await exited(s);
    expect(fs.readdirSync(path.join(dir, 'pids'))).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
