import type { Knex } from 'knex';
import { isDatabaseUnavailable } from '../db/availability';
import type { Logger } from './logger';

/**
 * A durable job queue in Postgres. Jobs are inserted with the same knex transaction as the
 * change that causes them, so a rollback never runs one and a crash never loses one; workers
 * claim due jobs with FOR UPDATE SKIP LOCKED, so several worker processes can share the table.
 */
export interface JobInfo {
  id: string;
  queue: string;
  attempts: number;
}

/** Runs outside any transaction: at-least-once (a retry after a crash may repeat its effect). */
export type JobHandler = (payload: Record<string, unknown>, job: JobInfo) => Promise<void>;
/** Runs inside a transaction that also marks the job done: its database effect happens exactly once. */
export type AtomicJobHandler = (payload: Record<string, unknown>, job: JobInfo, trx: Knex.Transaction) => Promise<void>;

export interface EnqueueOptions {
  runAt?: Date;
  /** At most one pending job with this key per queue (e.g. one cover-tint job per fundraiser). */
  singletonKey?: string;
  maxAttempts?: number;
}

export async function enqueue(
  db: Knex | Knex.Transaction,
  queue: string,
  payload: Record<string, unknown>,
  opts: EnqueueOptions = {},
): Promise<void> {
  const row = {
    queue,
    payload: JSON.stringify(payload),
    run_at: opts.runAt ?? db.fn.now(),
    singleton_key: opts.singletonKey ?? null,
    max_attempts: opts.maxAttempts ?? 5,
  };
  const q = db('jobs').insert(row);
  if (opts.singletonKey) await q.onConflict(db.raw('(queue, singleton_key) where done_at is null and singleton_key is not null')).ignore();
  else await q;
}

/** A job whose lease lapsed and was taken by another worker; its transaction is rolled back. */
class LeaseLost extends Error {}

interface Registered {
  handler: JobHandler | AtomicJobHandler;
  atomic: boolean;
}

interface ClaimedJob {
  id: string;
  queue: string;
  payload: Record<string, unknown>;
  attempts: number;
  lease_token: string;
}

export class JobWorker {
  private readonly handlers = new Map<string, Registered>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly db: Knex,
    private readonly log: Logger,
    private readonly pollMs = 500,
    /** How long a claimed job is reserved; a worker that dies lets it lapse and another takes the job. */
    private readonly leaseSeconds = 300,
  ) {}

  register(queue: string, handler: JobHandler): this {
    this.handlers.set(queue, { handler, atomic: false });
    return this;
  }

  /** A handler whose effect must commit together with the job's completion (event subscribers, ledger work). */
  registerAtomic(queue: string, handler: AtomicJobHandler): this {
    this.handlers.set(queue, { handler, atomic: true });
    return this;
  }

  queues(): string[] {
    return [...this.handlers.keys()];
  }

  start(): void {
    this.stopped = false;
    // While the database is away the worker pauses with a doubling delay (at most 30 s) and
    // one log line, instead of failing every half second; the first good tick resumes it.
    let pauseMs = 0;
    const tick = async () => {
      if (this.stopped) return;
      try {
        await this.drain();
        if (pauseMs > 0) this.log.info('job worker resumed: the database is back');
        pauseMs = 0;
      } catch (err) {
        if (!isDatabaseUnavailable(err)) this.log.error({ err }, 'job worker tick failed');
        else if (pauseMs === 0) this.log.warn({ err: (err as Error).message }, 'job worker paused: the database is unavailable');
        if (isDatabaseUnavailable(err)) pauseMs = Math.min(30_000, Math.max(1000, pauseMs * 2));
      }
      if (!this.stopped) this.timer = setTimeout(tick, pauseMs || this.pollMs);
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    // A tick cut short by the shutdown (database already gone) is logged by its own loop.
    await this.running?.catch(() => undefined);
  }

  /** Runs every due job of the registered queues, one at a time, until none is left. */
  async drain(limit = 1000): Promise<number> {
    while (this.running) await this.running.catch(() => undefined);
    let done = 0;
    const p = (async () => {
      while (done < limit) {
        const ran = await this.runOne();
        if (!ran) break;
        done += 1;
      }
    })();
    this.running = p;
    try {
      await p;
    } finally {
      this.running = null;
    }
    return done;
  }

  /** Claims one due job with a lease, in a short transaction of its own. */
  private async claim(): Promise<ClaimedJob | null> {
    const queues = this.queues();
    if (queues.length === 0) return null;
    const { rows } = await this.db.raw(
      `update jobs set attempts = attempts + 1, lease_token = gen_random_uuid(),
              locked_until = now() + make_interval(secs => ?)
        where id = (
          select id from jobs
           where queue = any(?) and done_at is null and run_at <= now() and attempts < max_attempts
             and (locked_until is null or locked_until < now())
           order by run_at
           for update skip locked
           limit 1)
       returning id, queue, payload, attempts, lease_token`,
      [this.leaseSeconds, queues],
    );
    return rows[0] ?? null;
  }

  private async runOne(): Promise<boolean> {
    const job = await this.claim();
    if (!job) return false;
    const reg = this.handlers.get(job.queue)!;
    const info: JobInfo = { id: job.id, queue: job.queue, attempts: job.attempts };
    const mine = { id: job.id, lease_token: job.lease_token };
    try {
      if (reg.atomic) {
        await this.db.transaction(async (trx) => {
          await (reg.handler as AtomicJobHandler)(job.payload, info, trx);
          const n = await trx('jobs').where(mine).whereNull('done_at').update({ done_at: trx.fn.now(), last_error: null, locked_until: null });
          if (n === 0) throw new LeaseLost('lease lost');
        });
      } else {
        await (reg.handler as JobHandler)(job.payload, info);
        await this.db('jobs').where(mine).update({ done_at: this.db.fn.now(), last_error: null, locked_until: null });
      }
    } catch (err) {
      if (err instanceof LeaseLost) return true;
      const backoffSeconds = Math.min(3600, 2 ** job.attempts * 5);
      this.log.warn({ err, queue: job.queue, jobId: job.id, attempts: job.attempts }, 'job failed');
      await this.db('jobs')
        .where(mine)
        .update({
          last_error: String((err as Error)?.message ?? err).slice(0, 2000),
          locked_until: null,
          run_at: this.db.raw(`now() + make_interval(secs => ?)`, [backoffSeconds]),
        });
    }
    return true;
  }
}
