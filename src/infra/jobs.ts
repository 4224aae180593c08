import type { Knex } from 'knex';
import pg from 'pg';
import { parseCronItems, run, runMigrations, runOnce, type JobHelpers, type Logger as WorkerLogger, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import { countingEvents, quietLogger, toCronItem, workerLogger, type CronEntry } from './jobs-adapters';
import type { Logger } from './logger';
import { jobTracing } from './job-tracing';
import { claimInbox, TRACE_KEY } from './jobs-enqueue';
import { JobPresence } from './job-presence';
import { directConnection, endpointsOf } from './db-endpoints';

export type { CronEntry } from './jobs-adapters';

/**
 * Background jobs on graphile-worker (adding them: jobs-enqueue.ts). Workers (the
 * API process with RUN_JOBS, or `npm run worker`, several at once) take jobs with SKIP LOCKED and
 * are woken by LISTEN/NOTIFY. Failed jobs are retried with graphile-worker's exponential backoff
 * (about e^attempts seconds) until max_attempts.
 */
export interface JobInfo {
  id: string;
  queue: string;
  attempts: number;
  maxAttempts: number;
}

/** Runs outside any transaction: at-least-once (a retry after a crash may repeat its effect). */
export type JobHandler = (payload: Record<string, unknown>, job: JobInfo) => Promise<void>;
/**
 * Runs inside a transaction that also records the job in the inbox (`job_inbox`, unique per
 * consumer and message): its database effect happens exactly once even when the job is retried
 * after its effect committed.
 */
export type AtomicJobHandler = (payload: Record<string, unknown>, job: JobInfo, trx: Knex.Transaction) => Promise<void>;

export { enqueue, insertAndEnqueue, claimInbox, TRACE_KEY, type EnqueueOptions } from './jobs-enqueue';

/** graphile-worker's schema and functions; migrateLatest runs this before the app's migrations. */
export async function migrateJobSchema(db: Knex): Promise<void> {
  const pool = new pg.Pool({ ...directConnection(db), max: 1 });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    await runMigrations({ pgPool: pool, logger: quietLogger });
  } finally {
    await pool.end();
  }
}

/** Direct connections of the job engine per process when DATABASE_URL is a pooler. */
export const POOLED_MODE_JOB_ENGINE_CONNECTIONS = 3;

export interface JobWorkerOptions {
  concurrency?: number;
  pollIntervalMs?: number;
  /** How often a running worker hands back the jobs of workers whose process died (JobPresence). */
  presenceSweepMs?: number;
}

/**
 * The process's job worker: handlers are registered by name (the graphile-worker task
 * identifier), then either `start()` (a long-running runner with the crontab) or `drain()`
 * (every due job now, once: tests and CLI).
 */
export class JobWorker {
  private readonly tasks: TaskList = {};
  private readonly cron: CronEntry[] = [];
  private pool: pg.Pool | null = null;
  private runner: Runner | null = null;
  private draining: Promise<number> | null = null;
  private stopped = true;
  private retryTimer: NodeJS.Timeout | null = null;
  private starting: Promise<void> | null = null;
  private readonly wlog: WorkerLogger;

  constructor(
    private readonly db: Knex,
    private readonly log: Logger,
    private readonly opts: JobWorkerOptions = {},
  ) {
    this.wlog = workerLogger(log);
  }

  register(task: string, handler: JobHandler): this {
    this.tasks[task] = async (payload, helpers) => {
      const { body, traceparent } = split(payload);
      await jobTracing.run(task, traceparent, () => handler(body, info(task, helpers)));
    };
    return this;
  }

  /** A handler whose effect must commit together with the job's inbox record (ledger work, mail outbox). */
  registerAtomic(task: string, handler: AtomicJobHandler): this {
    this.tasks[task] = async (payload, helpers) => {
      const { body, traceparent } = split(payload);
      await jobTracing.run(task, traceparent, () =>
        this.db.transaction(async (trx) => {
          if (!(await claimInbox(trx, task, String(helpers.job.id)))) return;
          await handler(body, info(task, helpers), trx);
        }),
      );
    };
    return this;
  }

  /** A periodic task (graphile-worker's crontab): each due tick runs once across every worker. */
  schedule(entry: CronEntry): this {
    this.cron.push(entry);
    return this;
  }

  queues(): string[] {
    return Object.keys(this.tasks);
  }

  private getPool(): pg.Pool {
    if (!this.pool) {
      // graphile-worker 0.17 takes its LISTEN client from the pool it runs its own statements on
      // (no separate listener setting), and LISTEN does not survive a transaction-mode pooler: so
      // its pool is always direct (DATABASE_DIRECT_URL when set). Behind a pooler it is kept
      // small, one listener and two for its short bookkeeping statements (take, complete, fail a
      // job); the jobs' own work runs on the app's pool (ctx.db), through the pooler.
      const max = endpointsOf(this.db).pooled ? POOLED_MODE_JOB_ENGINE_CONNECTIONS : Math.max(2, (this.opts.concurrency ?? 4) + 2);
      // Idle clients close and never hold the process open (tests, CLI); errors of idle clients
      // (the database restarting) are logged, never thrown.
      this.pool = new pg.Pool({ ...directConnection(this.db), max, idleTimeoutMillis: 5_000, allowExitOnIdle: true });
      // While stopping, the database may go first (the embedded cluster): not worth a warning.
      const warn = (what: string) => (err: Error) => (this.stopped ? this.log.debug({ err }, what) : this.log.warn({ err }, what));
      this.pool.on('error', warn('jobs: idle database client failed'));
      this.pool.on('connect', (client) => client.on('error', warn('jobs: database client failed')));
    }
    return this.pool;
  }

  /** Starts the runner in the background; while the database is away it retries with backoff. */
  start(): void {
    this.stopped = false;
    this.starting = this.startRunner(0);
  }

  private async startRunner(failures: number): Promise<void> {
    if (this.stopped) return;
    try {
      // The presence session first: a worker's lock must be held before it can take a job.
      this.presence ??= new JobPresence(directConnection(this.db), this.log);
      await this.presence.connect();
      const runner = await run({
        pgPool: this.getPool(),
        taskList: this.tasks,
        parsedCronItems: parseCronItems(this.cron.map(toCronItem)),
        concurrency: this.opts.concurrency ?? 4,
        pollInterval: this.opts.pollIntervalMs ?? 2_000,
        noHandleSignals: true,
        logger: this.wlog,
        events: this.watchWorkers(countingEvents()),
      });
      if (this.stopped) {
        await runner.stop();
        return;
      }
      this.runner = runner;
      this.presence.start(this.opts.presenceSweepMs ?? 5_000);
      this.log.info({ tasks: this.queues().length, cron: this.cron.length }, 'job worker running');
      runner.promise.catch((err) => {
        if (this.stopped) return;
        this.runner = null;
        this.log.error({ err }, 'job worker stopped; restarting');
        this.retryLater(1);
      });
    } catch (err) {
      this.log.warn({ err, failures }, 'job worker cannot start yet (database away?); retrying');
      this.retryLater(failures + 1);
    }
  }

  /** graphile-worker's pool ids of this process (jobs are locked by them): what a shutdown out of time releases. */
  private readonly workerIds = new Set<string>();

  /** This process's claim to be alive, per worker id (see JobPresence): a crash frees its jobs in seconds. */
  private presence: JobPresence | null = null;

  private watchWorkers(events: WorkerEvents): WorkerEvents {
    // Jobs are locked by the pool's id (graphile-worker 0.17): that id, and each worker's, is held alive.
    const alive = (id: string) => void this.presence?.add(id).catch((err) => this.log.warn({ err }, 'jobs: presence lock failed'));
    events.on('pool:create', ({ workerPool }) => {
      this.workerIds.add(workerPool.id);
      alive(workerPool.id);
    });
    events.on('worker:create', ({ worker }) => alive(worker.workerId));
    return events;
  }

  private retryLater(failures: number): void {
    if (this.stopped) return;
    const ms = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
    this.retryTimer = setTimeout(() => (this.starting = this.startRunner(failures)), ms);
    this.retryTimer.unref();
  }

  /**
   * Stops taking jobs and waits for the running ones; those still running after `timeoutMs` are
   * released (graphile-worker's forceful shutdown records the attempt and unlocks them), so
   * another worker runs them after the usual retry delay.
   */
  async stop(timeoutMs = 25_000): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // A runner still starting is stopped by startRunner itself once run() answers.
    await this.starting?.catch(() => undefined);
    const runner = this.runner;
    this.runner = null;
    if (runner) {
      const graceful = runner.stop().then(
        () => 'stopped' as const,
        (err) => {
          this.log.warn({ err }, 'jobs: stop failed');
          return 'stopped' as const;
        },
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
      if ((await Promise.race([graceful, late])) === 'late') {
        this.log.warn({ timeoutMs }, 'jobs: running jobs did not finish in time; releasing them for another worker');
        // Unlocked with their attempt counted and their run time kept: due at once for another
        // worker. (graphile-worker's own forceful path would record them as failed, retried later.)
        await this.getPool()
          .query(`select graphile_worker.force_unlock_workers($1::text[])`, [[...this.workerIds]])
          .catch((err) => this.log.warn({ err }, 'jobs: releasing running jobs failed'));
        // Handlers still running may yet use this pool (to record their end): close it without waiting.
        const pool = this.pool;
        this.pool = null;
        void pool?.end().catch(() => undefined);
        await this.presence?.stop();
        return;
      }
      clearTimeout(timer);
    }
    await this.draining?.catch(() => undefined);
    await this.presence?.stop();
    const pool = this.pool;
    this.pool = null;
    await pool?.end().catch(() => undefined);
  }

  /** Runs every due job of the registered tasks, one at a time, until none is left; how many ran. */
  async drain(): Promise<number> {
    while (this.draining) await this.draining.catch(() => undefined);
    const p = this.runOnce();
    this.draining = p;
    try {
      return await p;
    } finally {
      this.draining = null;
    }
  }

  private async runOnce(): Promise<number> {
    if (this.queues().length === 0) return 0;
    const events = countingEvents();
    let ran = 0;
    events.on('job:complete', () => {
      ran += 1;
    });
    const pool = this.getPool();
    await runOnce({ pgPool: pool, taskList: this.tasks, noHandleSignals: true, logger: this.wlog, events });
    // graphile-worker completes (deletes) or fails a job without awaiting it: wait for those
    // statements, so a caller sees the queue as the jobs left it.
    for (let i = 0; i < 1000 && (pool.totalCount > pool.idleCount || pool.waitingCount > 0); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    return ran;
  }
}

function info(task: string, helpers: JobHelpers): JobInfo {
  return { id: String(helpers.job.id), queue: task, attempts: helpers.job.attempts, maxAttempts: helpers.job.max_attempts };
}

function split(payload: unknown): { body: Record<string, unknown>; traceparent: string | undefined } {
  const p = (payload && typeof payload === 'object' ? payload : {}) as Record<string, unknown>;
  if (!(TRACE_KEY in p)) return { body: p, traceparent: undefined };
  const { [TRACE_KEY]: tp, ...body } = p;
  return { body, traceparent: typeof tp === 'string' ? tp : undefined };
}
