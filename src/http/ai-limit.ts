import type { Response } from 'express';
import type { Options, Store } from 'express-rate-limit';
import { MemoryStore } from 'express-rate-limit';
import type Redis from 'ioredis';
import type { Config } from '../config';
import { ApiError } from './errors';
import { storeFor } from './rate-limits';

const WINDOW_MS = 60_000;
const CAP = 10;
const stores = new WeakMap<object, Store>();

function storeOf(owner: { config: Config; redis: Redis | null }): Store {
  let store = stores.get(owner);
  if (!store) {
    store = storeFor('aiEndpoints', owner.redis, owner.config.RATE_LIMIT_PREFIX) ?? new MemoryStore();
    void store.init?.({ windowMs: WINDOW_MS } as Options);
    stores.set(owner, store);
  }
  return store;
}

/**
 * The spec's "AI endpoints" limit (10 a minute per user), checked inside the handler once the
 * request is known to reach the AI service. It is not a named limiter: its 429 is bare (no
 * RateLimit or Retry-After headers), as the spec says. Every attempt counts, failed ones too,
 * so a client retrying a failing generation in a loop is stopped after ten a minute.
 */
export async function checkAiLimit(owner: { config: Config; redis: Redis | null }, userId: string): Promise<void> {
  let hits: number;
  try {
    hits = (await storeOf(owner).increment(`user:${userId}`)).totalHits;
  } catch {
    return; // like the named limiters: a store outage lets requests through
  }
  if (hits > CAP) {
    throw new ApiError(429, 'Too many AI requests. Please wait a minute and try again.', 'Too many AI requests. Please wait a minute and try again.', {
      retryAfter: WINDOW_MS / 1000,
    });
  }
}

/**
 * Runs an AI handler so that the AI limit's 429 leaves bare: the named limiters before it
 * (hourly, daily) have already set their RateLimit headers on the response, which the spec
 * says this 429 does not carry.
 */
export async function withBareAiLimit<T>(res: Response, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiError && err.status === 429 && !res.headersSent) {
      for (const name of res.getHeaderNames()) if (/^(x-)?ratelimit-|^retry-after$/i.test(name)) res.removeHeader(name);
      // ...and the error middleware must not add Retry-After back.
      res.locals.bareRateLimit = true;
    }
    throw err;
  }
}
