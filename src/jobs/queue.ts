import type { Knex } from 'knex';
import type { Logger } from '../infra/logger';

/**
 * A durable job queue in Postgres. Jobs are inserted with the same knex transaction as the
 * change that causes them, so a rollback never runs one and a crash never loses one; workers
 * claim due jobs with FOR UPDATE SKIP LOCKED, so several worker processes can share the table.
 */
export type JobHandler = (payload: Record<string, unknown>, job: { id: string; attempts: number }) => Promise<void>;

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

export class JobWorker {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly db: Knex, private readonly log: Logger, private readonly pollMs = 500) {}

  register(queue: string, handler: JobHandler): this {
    this.handlers.set(queue, handler);
    return this;
  }

  start(): void {
    this.stopped = false;
    const tick = async () => {
      if (this.stopped) return;
      try {
        await this.drain();
      } catch (err) {
        this.log.error({ err }, 'job worker tick failed');
      }
      if (!this.stopped) this.timer = setTimeout(tick, this.pollMs);
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
    if (this.running) await this.running;
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

  private async runOne(): Promise<boolean> {
    const queues = [...this.handlers.keys()];
    if (queues.length === 0) return false;
    return this.db.transaction(async (trx) => {
      const job = await trx('jobs')
        .whereIn('queue', queues)
        .whereNull('done_at')
        .where('run_at', '<=', trx.fn.now())
        .whereRaw('attempts < max_attempts')
        .orderBy('run_at')
        .forUpdate()
        .skipLocked()
        .first();
      if (!job) return false;
      const handler = this.handlers.get(job.queue)!;
      const attempts = job.attempts + 1;
      try {
        await handler(job.payload, { id: job.id, attempts });
        await trx('jobs').where({ id: job.id }).update({ attempts, done_at: trx.fn.now(), last_error: null });
      } catch (err) {
        const backoffSeconds = Math.min(3600, 2 ** attempts * 5);
        this.log.warn({ err, queue: job.queue, jobId: job.id, attempts }, 'job failed');
        await trx('jobs')
          .where({ id: job.id })
          .update({
            attempts,
            last_error: String((err as Error)?.message ?? err).slice(0, 2000),
            run_at: trx.raw(`now() + make_interval(secs => ?)`, [backoffSeconds]),
          });
      }
      return true;
    });
  }
}
