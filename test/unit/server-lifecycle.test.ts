import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, machineSlowdown, ROOT, until } from '../helpers/processes';

// npm start compiles, then starts Postgres: on a busy machine that takes several times as long.
const SLOW = Math.min(4, machineSlowdown());

// The README's Quick start as a new user runs it: `npm start` with no DATABASE_URL, stopped by a
// signal sent to the npm process (what `kill <pid>`, a supervisor or `docker stop` do), with the
// operator CLI acting on the running server's embedded cluster in between.


const baseEnv = (dataDir: string, port: number) => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  DATA_DIR: dataDir,
  PORT: String(port),
  LOG_LEVEL: 'info',
});

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function npm(args: string[], env: NodeJS.ProcessEnv): Running {
  // Own process group: a failed run can be cleaned up whole (npm, server, postgres).
  const child = spawn('npm', args, { cwd: ROOT, env, detached: true });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

const signUp = (port: number) =>
  fetch(`http://127.0.0.1:${port}/api/v1/idp/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `new-${Date.now()}@example.com`, password: 'abcdef12' }),
  });

function postmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').split('\n')[0]) : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startServer(dataDir: string, port: number): Promise<Running & { postgres: number }> {
  const srv = npm(['start'], baseEnv(dataDir, port));
  // A first start runs initdb and every migration (graphile-worker's too): generous on a loaded CI machine.
  await until('the server', async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok ? true : undefined), 90_000 * SLOW);
  return { ...srv, postgres: postmasterPid(dataDir)! };
}

async function stopWith(srv: Running & { postgres: number }, signal: NodeJS.Signals) {
  srv.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 20_000 * SLOW)));
  const code = await Promise.race([srv.exited, hung]);
  clearTimeout(timer);
  return code;
}

describe('npm start lifecycle (embedded Postgres)', () => {
  let dir: string;
  const started: Running[] = [];

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-life-'));
    fs.chmodSync(dir, 0o777); // as root the cluster runs as the postgres user
  });

  afterAll(async () => {
    for (const s of started) {
      try {
        process.kill(-s.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('when SIGTERM or SIGINT reaches the npm process then the server and its postgres stop cleanly, and the CLI shares the running cluster and its change survives a restart', async () => {
    const dataDir = path.join(dir, 'data');
    const port = await freePort();

    const first = await startServer(dataDir, port);
    started.push(first);
    expect(first.postgres).toBeGreaterThan(0);
    expect((await signUp(port)).status).toBe(201);
    // `npm start` runs the compiled JavaScript, and still finds what is not compiled (the recorded examples).
    expect(fs.existsSync(path.join(ROOT, 'dist', 'src', 'server.js'))).toBe(true);
    const doc = JSON.stringify(await (await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`)).json());
    expect(doc).toMatch(/"examples?":/);

    // The operator CLI while the server runs: it attaches to the same cluster and leaves it up.
    const cli = npm(['run', 'admin', '--', 'set-flag', 'features.user_registration', 'off'], baseEnv(dataDir, port));
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain('features.user_registration is now off');
    expect(alive(first.postgres)).toBe(true);
    // Takes effect without a restart (flag cache of a few seconds).
    const refused = await until('the flag to apply', async () => {
      const r = await signUp(port);
      return r.status === 403 ? ((await r.json()) as Record<string, unknown>) : undefined;
    }, 10_000, 1000); // slow polls: sign-up carries the auth limiter (10 a minute)
    expect(refused.feature_key).toBe('features.user_registration');

    expect(await stopWith(first, 'SIGTERM')).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    expect(alive(first.postgres)).toBe(false);
    expect(postmasterPid(dataDir)).toBeNull();

    // Same DATA_DIR: the stored flag is still there.
    const second = await startServer(dataDir, port);
    started.push(second);
    expect(second.postgres).not.toBe(first.postgres);
    expect((await signUp(port)).status).toBe(403);

    expect(await stopWith(second, 'SIGINT')).toBe(0);
    expect(second.output()).toContain('"msg":"stopped"');
    // No error or fatal log line (pino levels 50, 60), no thrown error's line or stack frame; a job
    // record's `"last_error":null` (the crontab's prune, when a start falls on its minute) is not one.
    expect(second.output()).not.toMatch(/"level":(50|60)|uncaught|unhandled|^\w*Error: |^\s+at \S.*:\d+:\d+\)?$/im);
    expect(alive(second.postgres)).toBe(false);
    expect(postmasterPid(dataDir)).toBeNull();
  }, 240_000 * SLOW);
});
