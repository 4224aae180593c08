import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { circuitOf, throughCircuit, type RedisCircuit } from '../../infra/redis';

/**
 * Failure counters behind the adaptive CAPTCHA. Each failure refreshes the key's expiry, so a
 * count falls back to zero once `windowMs` passes without a new failure (a sliding window:
 * an attacker cannot reset it by pacing attempts just under the window).
 */
export interface RiskStore {
  /** Adds one failure and returns the new count. */
  increment(key: string, windowMs: number): Promise<number>;
  /** The current count (0 when absent or expired). */
  get(key: string): Promise<number>;
  reset(key: string): Promise<void>;
}

/** In-process counters (one instance only); used when REDIS_URL is unset and while Redis is away. */
export class MemoryRiskStore implements RiskStore {
  // Bounded: a flood of distinct IPs pushes out the least recently touched counters.
  private readonly entries: LRUCache<string, { count: number; expiresAt: number }>;

  constructor(
    private readonly now: () => number = Date.now,
    maxEntries = 100_000,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  async increment(key: string, windowMs: number): Promise<number> {
    const t = this.now();
    const e = this.entries.get(key);
    const count = e && e.expiresAt > t ? e.count + 1 : 1;
    this.entries.set(key, { count, expiresAt: t + windowMs });
    return count;
  }

  async get(key: string): Promise<number> {
    const e = this.entries.get(key);
    if (!e) return 0;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return 0;
    }
    return e.count;
  }

  async reset(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

/** Counters in Redis (INCR + PEXPIRE in one MULTI), shared by every API instance. */
export class RedisRiskStore implements RiskStore {
  constructor(private readonly redis: Redis) {}

  async increment(key: string, windowMs: number): Promise<number> {
    const res = await this.redis.multi().incr(key).pexpire(key, windowMs).exec();
    const [err, value] = res?.[0] ?? [new Error('empty MULTI reply'), null];
    if (err) throw err;
    return Number(value);
  }

  async get(key: string): Promise<number> {
    const v = await this.redis.get(key);
    return v === null ? 0 : Number(v) || 0;
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(key);
  }
}

/** Redis while it answers, per-process counters while it does not (docs/decisions/0011-outages-answer-503.md). */
export class ResilientRiskStore implements RiskStore {
  private readonly shared: RedisRiskStore;
  private readonly local = new MemoryRiskStore();
  private readonly circuit: RedisCircuit;

  constructor(redis: Redis) {
    this.shared = new RedisRiskStore(redis);
    this.circuit = circuitOf(redis);
  }

  increment(key: string, windowMs: number): Promise<number> {
    return throughCircuit(this.circuit, () => this.shared.increment(key, windowMs), () => this.local.increment(key, windowMs));
  }
  get(key: string): Promise<number> {
    return throughCircuit(this.circuit, () => this.shared.get(key), () => this.local.get(key));
  }
  reset(key: string): Promise<void> {
    return throughCircuit(this.circuit, () => this.shared.reset(key), () => this.local.reset(key));
  }
}
