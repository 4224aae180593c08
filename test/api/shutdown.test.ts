import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import { queueMail } from '../../src/integrations/mail';
import { makeDue } from '../../src/jobs/admin';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { freePort, ROOT, until } from '../helpers/processes';
import { reaped } from '../helpers/reaped';

/**
 * Stopping without dropping anyone (docs/decisions/0015-graceful-stop.md): a real server and a real
 * worker process, SIGTERM, and what a load balancer's keep-alive client and the job queue see.
 */
// Long enough for the checks made inside the window on a loaded machine; short for a test.
const DRAIN_MS = 4000;
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  await closeDb();
});

interface Proc {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; at: number }>;
}

function start(entry: 'server' | 'worker', env: Record<string, string>): Proc {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-shutdown-'));
  dirs.push(dir);
  const child = reaped(spawn(process.execPath, ['--import', 'tsx', `src/${entry}.ts`], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      DATABASE_DIRECT_URL: process.env.TEST_DIRECT_DATABASE_URL,
      DATA_DIR: dir,
      STORAGE_DIR: path.join(dir, 'uploads'),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      READ_CACHE: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  return { child, output: () => out, exited };
}

/** A GET through `agent`; answers status, headers and body (never throws on a status). */
function get(port: number, p: string, agent: http.Agent, onSocket?: (s: net.Socket) => void): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent, headers: { 'x-forwarded-for': `10.7.0.${Math.floor(Math.random() * 250)}` } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    if (onSocket) req.on('socket', onSocket);
    req.on('error', reject);
  });
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });

describe('SIGTERM on an API process', () => {
  test('when SIGTERM arrives, then /readyz is 503 at once, a request in the drain window is served, a slow request in flight completes, idle keep-alive connections close and it exits 0 within budget', async () => {
    const port = await freePort();
    const api = start('server', {
      PORT: String(port),
      RUN_JOBS: 'false',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      SHUTDOWN_TIMEOUT_MS: '30000',
      SEARCH_STATEMENT_TIMEOUT_MS: '120000',
      DB_STATEMENT_TIMEOUT_MS: '120000',
    });
    await until('the server to be ready', async () => (await get(port, '/readyz', new http.Agent())).status === 200, 120_000).catch((err) => {
      throw new Error(`${(err as Error).message}\n${api.output()}`);
    });

    // A balancer's pooled connection, idle once it has asked /healthz.
    const balancer = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let idle!: net.Socket;
    expect((await get(port, '/healthz', balancer, (s) => (idle = s))).status).toBe(200);
    let idleClosed = false;
    idle.once('close', () => (idleClosed = true));

    // A slow request: a search waiting inside Postgres behind a lock this test holds.
    const lock = new Client({ connectionString: process.env.TEST_DIRECT_DATABASE_URL ?? process.env.TEST_DATABASE_URL });
    await lock.connect();
    await lock.query('begin');
    await lock.query('lock table fundraiser_translations in access exclusive mode');
    let slowDone = false;
    const slow = get(port, '/api/v1/fundraisers?q=shutdown', new http.Agent({ keepAlive: true })).finally(() => (slowDone = true));
    slow.catch(() => undefined);
    try {
      // Stops early if the search answered instead of waiting (once seen in CI, unexplained): the
      // failure then says what it answered and what the server logged.
      await until('the search to wait on the lock', async () => {
        if (slowDone) return true;
        const r = await lock.query(`select count(*)::int n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
        return r.rows[0].n > 0;
      }, 60_000, 50).catch((err: Error) => {
        throw new Error(`${err.message}\n${api.output()}`);
      });
      if (slowDone) throw new Error(`the search answered without waiting on the lock: ${JSON.stringify(await slow.catch((e: Error) => e.message))}\n${api.output()}`);

      const sentAt = Date.now();
      api.child.kill('SIGTERM');
      await until('the drain to begin', async () => api.output().includes('stopping: draining'), 10_000, 10);
      // At once: the balancer's next probe on its kept-alive connection is 503.
      const ready = await get(port, '/readyz', balancer);
      expect(ready.status).toBe(503);
      // Still serving during the drain window, on a new connection too.
      const during = await get(port, '/api/v1/categories', new http.Agent());
      expect(during.status).toBe(200);
      expect((await get(port, '/healthz', balancer)).status).toBe(200);
      expect(Date.now() - sentAt).toBeLessThan(DRAIN_MS);
      expect(slowDone).toBe(false);

      // After the drain: no new connections, the idle keep-alive one closed, the slow request still running.
      await until('new connections to be refused', () => refused(port), 30_000, 50);
      await until('the idle keep-alive connection to close', async () => idleClosed, 10_000, 20);
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(DRAIN_MS);
      expect(slowDone).toBe(false);
      expect(api.child.exitCode).toBeNull();
    } finally {
      await lock.query('rollback');
      await lock.end();
    }
    const res = await slow;
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe('close');
    const { code } = await api.exited;
    expect(code).toBe(0);
    expect(api.output()).toContain('"msg":"stopped"');
  }, 240_000);
});

/** An SMTP server whose DATA answer waits until `release()`: a mail job in flight for as long as a test wants. */
async function slowSmtp() {
  let releaseAll!: () => void;
  const released = new Promise<void>((r) => (releaseAll = r));
  let started = 0;
  let delivered = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      started += 1;
      stream.on('data', () => undefined);
      stream.on('end', () => {
        void released.then(() => {
          delivered += 1;
          callback();
        });
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as net.AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    started: () => started,
    delivered: () => delivered,
    release: releaseAll,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const outboxRow = (to: string) => testDb()('mail_outbox').where({ to }).first();
const mailJobs = () => testDb().raw(`select j.attempts, j.locked_at from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = 'mail'`);

describe('SIGTERM on a worker process', () => {
  test('when a job is running, then the worker takes no new one, lets it finish, and exits 0; the mail goes out once', async () => {
    const smtp = await slowSmtp();
    const worker = start('worker', { SMTP_URL: smtp.url, SHUTDOWN_TIMEOUT_MS: '60000', JOBS_CONCURRENCY: '1' });
    try {
      await until('the worker to run', async () => worker.output().includes('job worker running'), 120_000).catch((err) => {
        throw new Error(`${(err as Error).message}\n${worker.output()}`);
      });
      const to = 'finish@example.test';
      await queueMail(testDb(), { to, template: 'password_reset', locale: 'en', vars: { code: '111111' } });
      await until('the mail job to be in flight', async () => smtp.started() === 1, 60_000, 20);
      worker.child.kill('SIGTERM');
      await until('the worker to stop taking jobs', async () => worker.output().includes('stopping: draining'), 10_000, 10);
      // Queued now, it stays for another worker: this one takes nothing new.
      await queueMail(testDb(), { to: 'later@example.test', template: 'password_reset', locale: 'en', vars: { code: '222222' } });
      await new Promise((r) => setTimeout(r, 300));
      expect(worker.child.exitCode).toBeNull();
      smtp.release();
      const { code } = await worker.exited;
      expect(code).toBe(0);
      expect(smtp.delivered()).toBe(1);
      expect(smtp.started()).toBe(1);
      expect((await outboxRow(to)).status).toBe('sent');
      expect((await outboxRow('later@example.test')).status).not.toBe('sent');
    } finally {
      await smtp.close();
    }
  }, 240_000);

  test('when a running job outlasts SHUTDOWN_TIMEOUT_MS, then the worker releases it and exits 0 within budget; another worker later sends it once', async () => {
    // The earlier test's mail left for another worker is not this test's: the queue starts empty.
    await testDb().raw(`delete from graphile_worker._private_jobs j using graphile_worker._private_tasks t where t.id = j.task_id and t.identifier = 'mail'`);
    const smtp = await slowSmtp();
    const worker = start('worker', { SMTP_URL: smtp.url, SHUTDOWN_TIMEOUT_MS: '1000', JOBS_CONCURRENCY: '1' });
    try {
      await until('the worker to run', async () => worker.output().includes('job worker running'), 120_000);
      const to = 'release@example.test';
      await queueMail(testDb(), { to, template: 'password_reset', locale: 'en', vars: { code: '333333' } });
      await until('the mail job to be in flight', async () => smtp.started() === 1, 60_000, 20);
      const sentAt = Date.now();
      worker.child.kill('SIGTERM');
      const { code, at } = await worker.exited;
      expect(code).toBe(0);
      // The budget plus the releasing and closing; far below the 10 s a hang would add.
      expect(at - sentAt).toBeLessThan(1000 + 8000);
      expect(worker.output()).toContain('releasing them for another worker');
      const [job] = (await mailJobs()).rows;
      expect(job).toMatchObject({ attempts: 1, locked_at: null });
      expect((await outboxRow(to)).status).not.toBe('sent');
    } finally {
      smtp.release();
      await smtp.close();
    }
    // Another worker sends it; once.
    const fast = await slowSmtp();
    fast.release();
    try {
      const other = createTestApp({ env: { SMTP_URL: fast.url } });
      // Released due at once (its run time kept): no retry delay to wait out.
      expect(await makeDue(testDb(), 'mail')).toBe(0);
      await other.runJobs();
      expect(fast.delivered()).toBe(1);
      expect((await outboxRow('release@example.test')).status).toBe('sent');
      expect((await mailJobs()).rows).toEqual([]);
    } finally {
      await fast.close();
    }
  }, 240_000);
});
