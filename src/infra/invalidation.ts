import pg from 'pg';
import type { Logger } from './logger';

/**
 * Invalidations of the public read cache, broadcast to every instance through Postgres
 * LISTEN/NOTIFY: triggers (migrations 20261124170000, 202611270801) send `read_cache` with a fundraiser id in
 * the transaction of each change, so a notification exists only once the change is committed
 * and reaches every instance, whichever process (API, worker, staff tool) made it.
 *
 * One dedicated connection per process listens (LISTEN needs a session, not a pooled one). While
 * it is down the cache must not answer: a notification sent meanwhile is lost, so `onDown` tells
 * the cache to drop everything and bypass until `onUp` after the reconnect.
 */
export const READ_CACHE_CHANNEL = 'read_cache';

export interface InvalidationHandlers {
  onMessage(fundraiserId: string): void;
  onUp(): void;
  onDown(): void;
}

/** Payload prefix of this process's own catch-up markers (barrier), never a change. */
const BARRIER = 'barrier:';
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

export class InvalidationListener {
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  /** True while LISTEN is in effect: every committed change since then will be delivered. */
  listening = false;
  private barrierSeq = 0;
  private readonly barriers = new Map<string, () => void>();

  constructor(
    private readonly connection: string | pg.ClientConfig,
    private readonly handlers: InvalidationHandlers,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.client || this.closed) return;
    void this.connect();
  }

  private async connect(): Promise<void> {
    const config = typeof this.connection === 'string' ? { connectionString: this.connection } : this.connection;
    // keepAlive: a peer that vanished without closing is noticed (then: reconnect, cache off meanwhile).
    const client = new pg.Client({ ...config, keepAlive: true, connectionTimeoutMillis: 5_000 });
    this.client = client;
    let failed = false;
    const fail = (err?: Error) => {
      if (failed) return;
      failed = true;
      if (err && !this.closed) this.log.warn({ err: err.message }, 'read cache: invalidation listener lost; reconnecting');
      this.down();
      client.removeAllListeners('notification');
      // An ended or broken client reports errors later too; keep them away from the process.
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.client === client) this.client = null;
      this.scheduleReconnect();
    };
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (msg) => {
      if (msg.channel !== READ_CACHE_CHANNEL || !msg.payload) return;
      if (msg.payload.startsWith(BARRIER)) this.barriers.get(msg.payload)?.();
      else this.handlers.onMessage(msg.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${READ_CACHE_CHANNEL}`);
      if (this.closed || failed) return fail();
      this.retryMs = RETRY_MIN_MS;
      this.listening = true;
      this.handlers.onUp();
    } catch (err) {
      fail(err as Error);
    }
  }

  /**
   * Notifies the channel from this session and waits for that notification to come back. Postgres
   * delivers notifications in commit order, so once it is back every change committed before the
   * call has been handed to onMessage. False on timeout or a lost connection.
   */
  async barrier(timeoutMs: number): Promise<boolean> {
    const client = this.client;
    if (!client || !this.listening) return false;
    const token = `${BARRIER}${process.pid}:${(this.barrierSeq += 1)}`;
    let timer: NodeJS.Timeout | undefined;
    const back = new Promise<boolean>((resolve) => {
      this.barriers.set(token, () => resolve(true));
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      await client.query('select pg_notify($1, $2)', [READ_CACHE_CHANNEL, token]);
      return await back;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.barriers.delete(token);
    }
  }

  private down(): void {
    const was = this.listening;
    this.listening = false;
    if (was || !this.closed) this.handlers.onDown();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.listening = false;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
