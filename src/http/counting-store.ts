import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';

/** One client's window: hits so far and when the window ends (ms since the epoch). */
export interface Bucket {
  hits: number;
  resetAt: number;
}

/**
 * The in-process rate-limit store (used when REDIS_URL is unset): express-rate-limit's
 * MemoryStore semantics (a fixed window per client from its first hit; clients unseen for a
 * window are forgotten), plus `hit`, a synchronous increment for the read cache's fast path
 * (src/http/read-cache/fast-hit.ts) that shares the same buckets. A bucket is one small object with a number
 * for its reset: no Date and no promise per new client address, which every guest hit from a new
 * address paid in MemoryStore.
 */
export class CountingStore implements Store {
  readonly localKeys = true;
  private windowMs = 60_000;
  private current = new Map<string, Bucket>();
  private previous = new Map<string, Bucket>();
  private timer: NodeJS.Timeout | undefined;

  init(options: Options): void {
    this.windowMs = options.windowMs;
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      this.previous = this.current;
      this.current = new Map();
    }, this.windowMs);
    this.timer.unref();
  }

  private bucket(key: string): Bucket {
    let b = this.current.get(key);
    if (b) return b;
    b = this.previous.get(key);
    if (b) this.previous.delete(key);
    else b = { hits: 0, resetAt: 0 };
    this.current.set(key, b);
    return b;
  }

  /** Counts one hit now; answers the client's bucket as after it (read it at once, it changes). */
  hit(key: string, now = Date.now()): Bucket {
    const b = this.bucket(key);
    if (b.resetAt <= now) {
      b.hits = 0;
      b.resetAt = now + this.windowMs;
    }
    b.hits += 1;
    return b;
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const b = this.current.get(key) ?? this.previous.get(key);
    if (!b || b.resetAt <= Date.now()) return undefined;
    return { totalHits: b.hits, resetTime: new Date(b.resetAt) };
  }

  async increment(key: string): Promise<IncrementResponse> {
    const b = this.hit(key);
    return { totalHits: b.hits, resetTime: new Date(b.resetAt) };
  }

  async decrement(key: string): Promise<void> {
    this.unhit(key);
  }

  /** Gives back one hit (synchronously: the fast path hands a refused request to the full path, which counts it again). */
  unhit(key: string): void {
    const b = this.bucket(key);
    if (b.hits > 0) b.hits -= 1;
  }

  async resetKey(key: string): Promise<void> {
    this.current.delete(key);
    this.previous.delete(key);
  }

  async resetAll(): Promise<void> {
    this.current.clear();
    this.previous.clear();
  }

  shutdown(): void {
    clearInterval(this.timer);
    void this.resetAll();
  }
}
