import pg from 'pg';
import type { Logger } from './logger';

export interface ListenHandlers {
  notification(channel: string, payload: string): void;
  /** LISTEN is (again) in effect: whatever was sent while it was not has been lost. */
  up(): void;
  /** The session was lost (not called for a deliberate close of a session that was not listening). */
  down?(): void;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * One Postgres session that LISTENs on some channels and comes back by itself: LISTEN needs a
 * session of its own (never a pooled connection), a lost one is noticed (keepAlive catches a peer
 * that vanished without closing) and made again with backoff, and each (re)start is told to the
 * owner, who must assume notifications were missed meanwhile. The read cache's invalidations and
 * the live streams each hold one.
 */
export class ListenSession {
  private current: pg.Client | null = null;
  private closed = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private waiters: Array<() => void> = [];
  /** True while LISTEN is in effect: every notification committed since then is delivered. */
  listening = false;

  constructor(
    private readonly connection: string | pg.ClientConfig,
    private readonly channels: readonly string[],
    private readonly handlers: ListenHandlers,
    private readonly log: Logger,
    /** Who holds the session, for the log line when it is lost. */
    private readonly owner: string,
  ) {}

  /** The session while it listens (for a statement that must run on it, such as a NOTIFY barrier). */
  get client(): pg.Client | null {
    return this.listening ? this.current : null;
  }

  start(): void {
    if (!this.current && !this.timer && !this.closed) void this.connect();
  }

  /** Starts the session if needed; resolves once LISTEN is in effect (false after `timeoutMs`). */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.listening) return Promise.resolve(true);
    this.start();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        resolve(this.listening);
      };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(done);
    });
  }

  private async connect(): Promise<void> {
    const config = typeof this.connection === 'string' ? { connectionString: this.connection } : this.connection;
    const client = new pg.Client({ ...config, keepAlive: true, connectionTimeoutMillis: 5_000 });
    this.current = client;
    let failed = false;
    const fail = (err?: Error) => {
      if (failed) return;
      failed = true;
      const was = this.listening;
      this.listening = false;
      if (err && !this.closed) this.log.warn({ err: err.message }, `${this.owner}: listener lost; reconnecting`);
      if (was || !this.closed) this.handlers.down?.();
      client.removeAllListeners('notification');
      // An ended or broken client reports errors later too; keep them away from the process.
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.current === client) this.current = null;
      this.scheduleReconnect();
    };
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (msg) => this.handlers.notification(msg.channel, msg.payload ?? ''));
    try {
      await client.connect();
      await client.query(this.channels.map((c) => `LISTEN ${c}`).join('; '));
      if (this.closed || failed) return fail();
      this.retryMs = RETRY_MIN_MS;
      this.listening = true;
      this.handlers.up();
    } catch (err) {
      fail(err as Error);
    } finally {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
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
    const client = this.current;
    this.current = null;
    if (client) await client.end().catch(() => undefined);
  }
}
