import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { circuitOf, throughCircuit, type RedisCircuit } from './redis';

/** A small TTL cache: Redis when configured (shared by every instance), else in-process. */
export interface Cache {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  /**
   * Returns the cached value or computes, stores and returns it. Concurrent misses of one key in
   * this process share one computation (single-flight), so an expensive render runs once.
   */
  wrap<T>(key: string, ttlSeconds: number, compute: () => Promise<T>): Promise<T>;
}

abstract class BaseCache implements Cache {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  abstract get<T>(key: string): Promise<T | undefined>;
  abstract set<T>(key: string, value: T, ttlSeconds: number): Promise<void>;
  abstract del(key: string): Promise<void>;
  async wrap<T>(key: string, ttlSeconds: number, compute: () => Promise<T>): Promise<T> {
    const hit = await this.get<T>(key);
    if (hit !== undefined) return hit;
    // The map holds only computations under way (each removes itself), so it stays small.
    let running = this.inFlight.get(key) as Promise<T> | undefined;
    if (!running) {
      running = (async () => {
        const value = await compute();
        await this.set(key, value, ttlSeconds);
        return value;
      })().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, running);
    }
    return running;
  }
}

export interface MemoryCacheBounds {
  maxEntries?: number;
  maxBytes?: number;
}

export const DEFAULT_CACHE_BOUNDS = { maxEntries: 10_000, maxBytes: 32 * 1024 * 1024 };

/** Rough resident size of a cached value: strings by length (base64 PNGs dominate), the rest as JSON. */
export function approxBytes(value: unknown): number {
  if (typeof value === 'string') return 64 + value.length * 2;
  if (Buffer.isBuffer(value)) return 64 + value.length;
  try {
    return 64 + (JSON.stringify(value)?.length ?? 0) * 2;
  } catch {
    return 1024;
  }
}

/** In-process and bounded: at most `maxEntries` values and about `maxBytes`, least recently used out first. */
export class MemoryCache extends BaseCache {
  // Values are boxed: lru-cache holds no null/undefined, and a cached null is a valid answer.
  private readonly entries: LRUCache<string, { value: unknown }>;

  constructor(bounds: MemoryCacheBounds = {}) {
    super();
    const maxBytes = bounds.maxBytes ?? DEFAULT_CACHE_BOUNDS.maxBytes;
    this.entries = new LRUCache<string, { value: unknown }>({
      max: bounds.maxEntries ?? DEFAULT_CACHE_BOUNDS.maxEntries,
      maxSize: maxBytes,
      // One value may take at most a tenth of the cache, so a huge one cannot flush the rest.
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 10)),
      sizeCalculation: (box) => Math.max(1, approxBytes(box.value)),
      // Date.now, not performance.now: expiry follows the clock tests (and operators) see; read
      // on every check (no 1 ms reuse of a cached "now", whose reset timer a busy loop delays).
      perf: { now: () => Date.now() },
      ttlResolution: 0,
    });
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.entries.calculatedSize;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return this.entries.get(key)?.value as T | undefined;
  }
  async set<T>(key: string, value: T, ttlSeconds: number): Promise<void> {
    this.entries.set(key, { value }, { ttl: Math.max(1, Math.round(ttlSeconds * 1000)) });
  }
  async del(key: string): Promise<void> {
    this.entries.delete(key);
  }
  clear(): void {
    this.entries.clear();
  }
}

export class RedisCache extends BaseCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'cache:',
  ) {
    super();
  }
  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.redis.get(this.prefix + key);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }
  async set<T>(key: string, value: T, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.prefix + key, JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlSeconds * 1000)));
  }
  async del(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}

/**
 * Redis while it answers, a bounded in-process cache while it does not (docs/decisions/0011-outages-answer-503.md
 * "Outages"): a Redis fault costs a cache miss, never an error. The local copy is emptied on each
 * switch to it, so nothing older than the outage is served from it.
 */
export class ResilientCache extends BaseCache {
  private readonly shared: RedisCache;
  private readonly local: MemoryCache;
  private readonly circuit: RedisCircuit;

  constructor(redis: Redis, bounds: MemoryCacheBounds = {}, prefix?: string) {
    super();
    this.shared = new RedisCache(redis, prefix);
    this.local = new MemoryCache(bounds);
    this.circuit = circuitOf(redis);
    this.circuit.on('change', (state) => {
      if (state === 'local') this.local.clear();
    });
  }

  get<T>(key: string): Promise<T | undefined> {
    return throughCircuit(this.circuit, () => this.shared.get<T>(key), () => this.local.get<T>(key));
  }
  set<T>(key: string, value: T, ttlSeconds: number): Promise<void> {
    return throughCircuit(this.circuit, () => this.shared.set(key, value, ttlSeconds), () => this.local.set(key, value, ttlSeconds));
  }
  del(key: string): Promise<void> {
    return throughCircuit(this.circuit, () => this.shared.del(key), () => this.local.del(key));
  }
}
