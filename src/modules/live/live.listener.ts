import pg from 'pg';
import type { Logger } from '../../infra/logger';
import { READ_CACHE_CHANNEL } from '../../infra/invalidation';

/** Sent with the commit of each settled gift: `<campaign id>:<journal seq>` (migration 20261201100000). */
export const LIVE_GIFT_CHANNEL = 'live_gift';

export interface LiveSignals {
  /** A gift of the campaign was settled (its journal position). */
  gift(fundraiserId: string, seq: string): void;
  /** Something the campaign's progress or readability shows changed; `null`: maybe every campaign. */
  change(fundraiserId: string | null): void;
  /** LISTEN is (again) in effect: anything may have been missed while it was not. */
  up(): void;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * The live streams' one Postgres session per process (never one per viewer): LISTENs on the gift
 * journal's channel and on the read cache's change channel, which every table a campaign's
 * progress or visibility reads already notifies on commit. It is its own connection rather than
 * the read cache's: that one exists only while READ_CACHE is on and goes down and up with the
 * cache's rules. Like it, it must be a direct session (DATABASE_DIRECT_URL behind a pooler).
 */
export class LiveListener {
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private waiters: Array<() => void> = [];
  listening = false;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly signals: LiveSignals,
    private readonly log: Logger,
  ) {}

  /** Starts the session if needed; resolves once LISTEN is in effect (false after `timeoutMs`). */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.listening) return Promise.resolve(true);
    if (!this.client && !this.timer && !this.closed) void this.connect();
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
    const client = new pg.Client({ ...this.connection, keepAlive: true, connectionTimeoutMillis: 5_000 });
    this.client = client;
    let failed = false;
    const fail = (err?: Error) => {
      if (failed) return;
      failed = true;
      this.listening = false;
      if (err && !this.closed) this.log.warn({ err: err.message }, 'live streams: listener lost; reconnecting');
      client.removeAllListeners('notification');
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.client === client) this.client = null;
      this.scheduleReconnect();
    };
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (msg) => {
      const p = msg.payload ?? '';
      if (msg.channel === LIVE_GIFT_CHANNEL) {
        const at = p.indexOf(':');
        if (at > 0) this.signals.gift(p.slice(0, at), p.slice(at + 1));
      } else if (msg.channel === READ_CACHE_CHANNEL && !p.startsWith('barrier:')) {
        this.signals.change(p === '*' ? null : p.split(':')[0]!);
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_GIFT_CHANNEL}; LISTEN ${READ_CACHE_CHANNEL}`);
      if (this.closed || failed) return fail();
      this.retryMs = RETRY_MIN_MS;
      this.listening = true;
      this.signals.up();
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
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
