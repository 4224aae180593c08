import type pg from 'pg';
import { ListenSession } from './listen-session';
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

export class InvalidationListener {
  private readonly session: ListenSession;
  private barrierSeq = 0;
  private readonly barriers = new Map<string, () => void>();

  constructor(connection: string | pg.ClientConfig, handlers: InvalidationHandlers, log: Logger) {
    this.session = new ListenSession(
      connection,
      [READ_CACHE_CHANNEL],
      {
        notification: (channel, payload) => {
          if (channel !== READ_CACHE_CHANNEL || !payload) return;
          if (payload.startsWith(BARRIER)) this.barriers.get(payload)?.();
          else handlers.onMessage(payload);
        },
        up: () => handlers.onUp(),
        down: () => handlers.onDown(),
      },
      log,
      'read cache',
    );
  }

  /** True while LISTEN is in effect: every committed change since then will be delivered. */
  get listening(): boolean {
    return this.session.listening;
  }

  start(): void {
    this.session.start();
  }

  /** The barrier on its way, and the one that callers arriving meanwhile share (sent when it is back). */
  private inFlight: Promise<boolean> | null = null;
  private queued: Promise<boolean> | null = null;

  /**
   * Resolves once every change committed before the call has been handed to onMessage: a
   * notification sent from this session after the call has come back (Postgres delivers
   * notifications in commit order). Concurrent write requests share barriers: while one is out,
   * every caller waits for the next, sent when it is back, so the session runs one query at a
   * time and a burst of writes costs two round trips, not one each. False on timeout or a lost connection.
   */
  barrier(timeoutMs: number): Promise<boolean> {
    if (!this.inFlight) {
      const sent = this.sendBarrier(timeoutMs);
      const tracked: Promise<boolean> = sent.finally(() => {
        if (this.inFlight === tracked) this.inFlight = null;
      });
      this.inFlight = tracked;
      return sent;
    }
    // The one out was sent before this call: it proves nothing about commits just before it.
    this.queued ??= this.inFlight.then(() => {
      this.queued = null;
      return this.barrier(timeoutMs);
    });
    return this.queued;
  }

  private async sendBarrier(timeoutMs: number): Promise<boolean> {
    const client = this.session.client;
    if (!client) return false;
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

  close(): Promise<void> {
    return this.session.close();
  }
}
