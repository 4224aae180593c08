import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pgbouncerMissing } from '../helpers/pgbouncer';
import { machineSlowdown, ROOT, until } from '../helpers/processes';

// A test run killed with SIGKILL leaves none of the servers its tests started: the embedded
// Postgres of the global setup, a primary and its replica, PgBouncer, Redis and an app-like child
// (test/fixtures/reaped/). A real jest runs the fixtures in two workers; once each has started its
// servers, jest is killed. Its workers, orphaned, would run on; the reapers kill them and stop
// everything they started.
const missing = pgbouncerMissing();
const suite = missing ? describe.skip : describe;
if (missing) console.warn(missing);

jest.setTimeout(600_000);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

suite('a killed test run', () => {
  test('leaves no server running and no folder behind', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-reaped-out-'));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, REAPED_OUT: out, TEST_PGBOUNCER: '1' };
    const jest = spawn(process.execPath, [path.join(ROOT, 'node_modules/jest/bin/jest.js'), '--config', 'test/fixtures/reaped/jest.config.js', '--cacheDirectory', path.join(out, 'cache')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    jest.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const exited = new Promise((r) => jest.once('exit', r));
    try {
      const recorded = await until('both fixtures to start their servers', () => {
        if (jest.exitCode !== null) throw new Error(`jest exited ${jest.exitCode}: ${stderr}`);
        const files = ['databases', 'children'].map((n) => path.join(out, `${n}.json`));
        return files.every((f) => fs.existsSync(f)) && files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { pids: number[]; folders: string[] });
      }, 300_000, 250).catch((err: Error) => {
        throw new Error(`${err.message}: ${stderr}`);
      });
      const pids = [jest.pid!, ...recorded.flatMap((r) => r.pids)];
      const folders = recorded.flatMap((r) => r.folders);
      // The global setup's Postgres, the pair's two, PgBouncer x2, Redis, the app, both workers.
      expect(pids.length).toBeGreaterThanOrEqual(10);
      expect(pids.filter((p) => !alive(p))).toEqual([]);
      expect(folders.filter((f) => !fs.existsSync(f))).toEqual([]);

      jest.kill('SIGKILL');
      await exited;
      // 10 s on an idle machine, stretched by how busy this one is.
      const bound = 10_000 * machineSlowdown();
      await until('every server to stop and every folder to go', () => pids.every((p) => !alive(p)) && folders.every((f) => !fs.existsSync(f)), bound, 250).catch(() => undefined);
      expect({ running: pids.filter(alive), left: folders.filter((f) => fs.existsSync(f)) }).toEqual({ running: [], left: [] });
    } finally {
      if (jest.exitCode === null && jest.signalCode === null) jest.kill('SIGKILL');
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
