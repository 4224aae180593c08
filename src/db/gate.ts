import type { Knex } from 'knex';
import type { Db } from './knex';

/** Seconds a client is told to wait (Retry-After) when expensive work is refused. */
export const OVERLOAD_RETRY_AFTER_S = 1;

/**
 * A per-process semaphore with a bounded wait queue: at most `limit` holders; up to `queueMax`
 * callers wait (first come, first served) for at most `queueTimeoutMs`; anyone beyond is refused
 * at once. Keeps one kind of expensive request from taking every pooled connection.
 */
export class WorkGate {
  private running = 0;
  private readonly waiting: Array<{ grant: () => void; timer: NodeJS.Timeout }> = [];

  constructor(
    readonly limit: number,
    readonly queueMax: number,
    readonly queueTimeoutMs: number,
  ) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** A release function, or an error: 'full' (queue full) or 'timeout' (waited too long). */
  acquire(): Promise<() => void> {
    if (this.running < this.limit) {
      this.running += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.queueMax) return Promise.reject(new GateRefused('full'));
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(entry.timer);
          resolve(this.releaser());
        },
        timer: setTimeout(() => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new GateRefused('timeout'));
        }, this.queueTimeoutMs),
      };
      this.waiting.push(entry);
    });
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `running` stays put.
      if (next) next.grant();
      else this.running -= 1;
    };
  }
}

export class GateRefused extends Error {
  constructor(readonly reason: 'full' | 'timeout') {
    super(`work gate refused: ${reason}`);
  }
}

/** The size of a knex pool (tarn's max), or `fallback` when it cannot be read. */
export function poolMax(db: Db, fallback = 10): number {
  const pool = (db.client as { pool?: { max?: number } }).pool;
  const cfg = (db.client as { config?: { pool?: { max?: number } } }).config?.pool;
  return pool?.max ?? cfg?.max ?? fallback;
}

/** Postgres cancelled the statement: statement_timeout (or a cancel request). */
export function isQueryCanceled(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '57014';
}

/**
 * Runs `work` in a read-only transaction whose statements Postgres cancels after `ms`
 * (SET LOCAL: the limit ends with the transaction, so the pooled connection is left as it was).
 * All of `work`'s queries share that one connection.
 */
export async function withStatementTimeout<T>(db: Db, ms: number, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(
    async (trx) => {
      await trx.raw(`select set_config('statement_timeout', ?, true)`, [`${Math.max(1, Math.floor(ms))}ms`]);
      return work(trx);
    },
    { readOnly: true },
  );
}
