import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import type Redis from 'ioredis';
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from './metrics-registry';
import { circuitOf, redisState, type RedisState } from './redis';
import { isLoopbackClient } from './trust-proxy';

/**
 * Every Prometheus family the service exports (docs/operations/observability.md), on one
 * registry (metrics-registry.ts); modules call the small record* helpers, never prom-client directly. Labels are
 * bounded: a route is its pattern (`/api/v1/fundraisers/:id`), never the raw path.
 */
export { HEAVY_DEFAULT_FAMILIES, registry } from './metrics-registry';

const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});
const inFlight = new Gauge({ name: 'http_requests_in_flight', help: 'HTTP requests being answered', registers: [registry] });

const stripeEvents = new Counter({
  name: 'stripe_events_processed_total',
  help: 'Stripe webhook events processed, by event type and outcome (processed, duplicate, ignored, failed)',
  labelNames: ['type', 'outcome'] as const,
  registers: [registry],
});
const webhookDeliveries = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Outbound integrator webhook delivery attempts by outcome (succeeded, retrying, failed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
const cacheHits = new Counter({ name: 'cache_hits_total', help: 'Cache hits by cache', labelNames: ['cache'] as const, registers: [registry] });
const cacheMisses = new Counter({ name: 'cache_misses_total', help: 'Cache misses by cache', labelNames: ['cache'] as const, registers: [registry] });
const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Requests refused with 429 by limiter',
  labelNames: ['limiter'] as const,
  registers: [registry],
});
const jobsProcessed = new Counter({
  name: 'jobs_processed_total',
  help: 'Jobs run by this process, by task and outcome (succeeded, failed)',
  labelNames: ['task', 'outcome'] as const,
  registers: [registry],
});

const dbReads = new Counter({
  name: 'db_reads_total',
  help: 'Guest reads and read-cache fills by the database that served them (replica, primary)',
  labelNames: ['target'] as const,
  registers: [registry],
});

export function recordDbRead(target: 'replica' | 'primary'): void {
  dbReads.inc({ target });
}
export function recordStripeEvent(type: string, outcome: 'processed' | 'duplicate' | 'ignored' | 'failed'): void {
  stripeEvents.inc({ type, outcome });
}
export function recordWebhookDelivery(outcome: 'succeeded' | 'retrying' | 'failed'): void {
  webhookDeliveries.inc({ outcome });
}
export function recordCache(cache: string, hit: boolean): void {
  (hit ? cacheHits : cacheMisses).inc({ cache });
}
export function recordRateLimitRefusal(limiter: string): void {
  rateLimitRefusals.inc({ limiter });
}
export function recordJob(task: string, outcome: 'succeeded' | 'failed'): void {
  jobsProcessed.inc({ task, outcome });
}

const liveTick = new Histogram({
  name: 'live_tick_seconds',
  help: 'Live streams: one campaign tick by phase (read: its database reads; write: the batch to every viewer)',
  labelNames: ['phase'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});
export function recordLiveTick(phase: 'read' | 'write', seconds: number): void {
  liveTick.observe({ phase }, seconds);
}

// Read at scrape time from whatever the process registered (the API's knex pool, the job queue).
interface PoolLike {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}
let dbSource: Knex | null = null;
/** The knex instance whose pool is reported and whose graphile-worker tables are counted. */
export function observeDatabase(db: Knex): void {
  dbSource = db;
}

const redisSwitches = new Counter({
  name: 'redis_circuit_switches_total',
  help: 'Switches of the Redis circuit, by the state switched to (shared = Redis, local = per-process fallback)',
  labelNames: ['state'] as const,
  registers: [registry],
});
let redisSource: Redis | null = null;
new Gauge({
  name: 'redis_shared_state',
  help: '1 while rate limits, CAPTCHA risk and caches use Redis, 0 while they fall back to per-process state (absent without REDIS_URL)',
  registers: [registry],
  collect() {
    const state = redisState(redisSource);
    if (state) this.set(state === 'shared' ? 1 : 0);
  },
});
/** Reports the process's Redis circuit: its state at scrape time and each switch. */
export function observeRedis(redis: Redis | null): void {
  if (!redis || redisSource === redis) return;
  redisSource = redis;
  circuitOf(redis).on('change', (state: RedisState) => redisSwitches.inc({ state }));
}

new Gauge({
  name: 'db_pool_connections',
  help: 'Database pool connections by state (in_use, idle, waiting = acquires queued)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const pool = (dbSource?.client as { pool?: PoolLike } | undefined)?.pool;
    if (!pool) return;
    this.set({ state: 'in_use' }, pool.numUsed());
    this.set({ state: 'idle' }, pool.numFree());
    this.set({ state: 'waiting' }, pool.numPendingAcquires());
  },
});

interface QueueRow {
  task: string;
  waiting: number;
  oldest: number;
}
let queueRead: Promise<QueueRow[]> | null = null;
/** One query per scrape for both job gauges; a scrape while the database is away reports nothing. */
function readQueue(): Promise<QueueRow[]> {
  if (!dbSource) return Promise.resolve([]);
  queueRead ??= dbSource
    .raw(
      `select task_identifier as task, count(*)::int as waiting,
              coalesce(extract(epoch from now() - min(run_at)), 0)::float8 as oldest
         from graphile_worker.jobs
        where locked_at is null and attempts < max_attempts and run_at <= now()
        group by task_identifier`,
    )
    .then((r: { rows: QueueRow[] }) => r.rows, () => [])
    .finally(() => setTimeout(() => (queueRead = null), 0));
  return queueRead;
}
const jobsWaiting = new Gauge({
  name: 'jobs_waiting',
  help: 'Jobs due and not yet taken, by task',
  labelNames: ['task'] as const,
  registers: [registry],
  async collect() {
    jobsWaiting.reset();
    for (const r of await readQueue()) this.set({ task: r.task }, r.waiting);
  },
});
const jobsOldest = new Gauge({
  name: 'jobs_oldest_waiting_seconds',
  help: 'Age of the oldest due job not yet taken, by task',
  labelNames: ['task'] as const,
  registers: [registry],
  async collect() {
    jobsOldest.reset();
    for (const r of await readQueue()) this.set({ task: r.task }, r.oldest);
  },
});

/**
 * The route pattern Express matched, or a fixed label when none did. The API's routes live on a
 * router mounted at /api/v1 (req.baseUrl is reset by the time the answer finishes); the health
 * checks, webhooks and /metrics are mounted at the root.
 */
export function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return '<unmatched>';
  return req.originalUrl.startsWith('/api/v1/') ? `/api/v1${path}` : path;
}

/** Times every request; mounted first so the duration covers the whole stack. */
export function httpMetrics(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    inFlight.inc();
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      inFlight.dec();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      httpDuration.observe({ method: req.method, route: routeOf(req), status: String(res.statusCode) }, seconds);
    };
    res.once('finish', end);
    res.once('close', end);
    next();
  };
}

/**
 * httpMetrics' record of one answer given outside Express (the read cache's fast path,
 * src/http/read-cache/fast-hit.ts): timed from `start` (process.hrtime.bigint()) to now, under the route's
 * label as routeOf gives it. Answered within one tick, so it never shows in the in-flight gauge.
 */
export function observeAnswer(method: string, route: string, status: number, start: bigint): void {
  httpDuration.observe({ method, route, status: String(status) }, Number(process.hrtime.bigint() - start) / 1e9);
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics: with a token, `Authorization: Bearer <token>` is required; without one, only
 * loopback clients may read it: the client Express derives under TRUST_PROXY, and no forwarded
 * address that is not loopback (isLoopbackClient), so a proxy on loopback cannot open it to all.
 */
export function metricsEndpoint(token: string | undefined): RequestHandler {
  const want = token ? digest(token) : null;
  return async (req, res, next) => {
    try {
      if (want) {
        const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
        if (!m || !timingSafeEqual(digest(m[1]!), want)) {
          res.setHeader('WWW-Authenticate', 'Bearer');
          res.status(401).json({ error: 'Not authenticated', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' });
          return;
        }
      } else if (!isLoopbackClient(req)) {
        res.status(403).json({ error: 'Forbidden', message: 'Without METRICS_TOKEN, /metrics answers loopback clients only' });
        return;
      }
      const body = await registry.metrics();
      res.setHeader('Content-Type', registry.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.send(body);
    } catch (err) {
      next(err);
    }
  };
}

// The latest reconciliation run's differences, read at scrape time through the reader the
// reconciliation module registers (it owns the runs table); absent until one is registered.
let reconciliationRead: ((db: Knex) => Promise<number | null>) | null = null;
/** Registers how the `reconciliation_differences` gauge reads the latest run. */
export function observeReconciliation(read: (db: Knex) => Promise<number | null>): void {
  reconciliationRead = read;
}
new Gauge({
  name: 'reconciliation_differences',
  help: 'Differences the latest reconciliation run found between the processor balance transactions and the ledger (0: clean)',
  registers: [registry],
  async collect() {
    if (!dbSource || !reconciliationRead) return;
    const n = await reconciliationRead(dbSource).catch(() => null);
    if (n !== null) this.set(n);
  },
});

// When the newest backup and verified restore succeeded, read at scrape time from the table the
// backups module owns, so every process reports the same whichever process took them.
let backupsRead: ((db: Knex) => Promise<{ backup: number; verify: number }>) | null = null;
/** Registers how the two backup gauges read the newest successful runs. */
export function observeBackups(read: (db: Knex) => Promise<{ backup: number; verify: number }>): void {
  backupsRead = read;
}
let backupsReading: Promise<{ backup: number; verify: number } | null> | null = null;
function readBackups(): Promise<{ backup: number; verify: number } | null> {
  if (!dbSource || !backupsRead) return Promise.resolve(null);
  backupsReading ??= backupsRead(dbSource)
    .catch(() => null)
    .finally(() => setTimeout(() => (backupsReading = null), 0));
  return backupsReading;
}
for (const [name, key, help] of [
  ['backup_last_success_timestamp_seconds', 'backup', 'When the newest successful backup finished (Unix seconds; 0: none recorded)'],
  ['backup_last_verified_timestamp_seconds', 'verify', 'When a backup last restored and passed check-ledger (Unix seconds; 0: never)'],
] as const) {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const r = await readBackups();
      if (r) this.set(r[key]);
    },
  });
}
