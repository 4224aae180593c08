import pg from 'pg';
import type { Logger } from './logger';

/**
 * Who is alive among graphile-worker's workers, so a crashed worker's jobs run again in seconds.
 *
 * graphile-worker 0.17 takes back a locked job only 4 hours after it was locked (hard-coded in
 * get_job), and nothing unlocks the jobs of a process killed with SIGKILL or lost with its machine.
 * So each process holds, on one direct session of its own, a session advisory lock per worker id
 * it runs; a process that dies loses its session and its locks with it. Every few seconds each
 * worker process looks at the ids holding jobs: an id whose lock it can take has no live owner,
 * and its jobs are handed back with `force_unlock_workers` (their attempt kept, due at once).
 * The session is direct (DATABASE_DIRECT_URL), never through a transaction-mode pooler.
 */
const NAMESPACE = 0x6a6f6273; // 'jobs': the first key of the two-key advisory locks

export class JobPresence {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly own = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** One statement at a time on the session (node-postgres queues them, but warns). */
  private queue: Promise<unknown> = Promise.resolve();

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly log: Logger,
    /** A job locked for less than this is never taken back (its worker may be taking its lock still). */
    private readonly graceMs = 5_000,
  ) {}

  private session(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ ...this.connection, application_name: 'job-presence' });
      client.on('error', (err) => {
        // The session is gone and our locks with it: take them again on the next use.
        this.log.warn({ err }, 'jobs: presence session lost; taking the locks again');
        if (this.client === client) this.client = null;
        void client.end().catch(() => undefined);
        if (!this.stopped) void this.relock();
      });
      try {
        await client.connect();
        for (const id of this.own) await client.query('select pg_advisory_lock($1, hashtext($2))', [NAMESPACE, id]);
        this.client = client;
        return client;
      } catch (err) {
        void client.end().catch(() => undefined);
        throw err;
      } finally {
        this.connecting = null;
      }
    })();
    return this.connecting;
  }

  private async relock(): Promise<void> {
    await this.session().catch((err) => this.log.warn({ err }, 'jobs: presence session cannot reconnect yet'));
  }

  /** Opens the session (before any worker of this process may take a job). */
  async connect(): Promise<void> {
    await this.session();
  }

  /** Marks `workerId` alive for as long as this process's session lives. */
  async add(workerId: string): Promise<void> {
    this.own.add(workerId);
    await this.serial(async () => {
      const c = await this.session();
      await c.query('select pg_advisory_lock($1, hashtext($2))', [NAMESPACE, workerId]);
    });
  }

  /** Hands back the jobs of workers with no live process; answers the worker ids released. */
  sweep(): Promise<string[]> {
    return this.serial(() => this.sweepNow());
  }

  private async sweepNow(): Promise<string[]> {
    const c = await this.session();
    const { rows } = await c.query<{ locked_by: string }>(
      `select distinct locked_by from graphile_worker._private_jobs
        where locked_by is not null and locked_at < now() - make_interval(secs => $1::float8 / 1000)`,
      [this.graceMs],
    );
    const dead: string[] = [];
    for (const { locked_by: id } of rows) {
      if (this.own.has(id)) continue;
      const { rows: got } = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as ok', [NAMESPACE, id]);
      if (!got[0]?.ok) continue;
      await c.query('select pg_advisory_unlock($1, hashtext($2))', [NAMESPACE, id]);
      dead.push(id);
    }
    if (dead.length) {
      await c.query('select graphile_worker.force_unlock_workers($1::text[])', [dead]);
      this.log.warn({ workers: dead }, 'jobs: released the jobs of workers whose process is gone');
    }
    return dead;
  }

  /** Sweeps now and every `everyMs` until stop(). */
  start(everyMs: number): void {
    if (!this.stopped && this.timer) return;
    this.stopped = false;
    const tick = () => {
      void this.sweep()
        .catch((err) => this.log.warn({ err }, 'jobs: presence sweep failed'))
        .finally(() => {
          if (!this.stopped) {
            this.timer = setTimeout(tick, everyMs);
            this.timer.unref();
          }
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client ?? (await this.connecting?.catch(() => null));
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
