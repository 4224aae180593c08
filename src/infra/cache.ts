import type Redis from 'ioredis';

/** A small TTL cache: Redis when configured (shared by every instance), else in-process. */
export interface Cache {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  /** Returns the cached value or computes, stores and returns it. */
  wrap<T>(key: string, ttlSeconds: number, compute: () => Promise<T>): Promise<T>;
}

abstract class BaseCache implements Cache {
  abstract get<T>(key: string): Promise<T | undefined>;
  abstract set<T>(key: string, value: T, ttlSeconds: number): Promise<void>;
  abstract del(key: string): Promise<void>;
  async wrap<T>(key: string, ttlSeconds: number, compute: () => Promise<T>): Promise<T> {
    const hit = await this.get<T>(key);
    if (hit !== undefined) return hit;
    const value = await compute();
    await this.set(key, value, ttlSeconds);
    return value;
  }
}

export class MemoryCache extends BaseCache {
  private readonly entries = new Map<string, { value: unknown; expires: number }>();
  async get<T>(key: string): Promise<T | undefined> {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value as T;
  }
  async set<T>(key: string, value: T, ttlSeconds: number): Promise<void> {
    this.entries.set(key, { value, expires: Date.now() + ttlSeconds * 1000 });
  }
  async del(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

export class RedisCache extends BaseCache {
  constructor(private readonly redis: Redis, private readonly prefix = 'cache:') {
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
