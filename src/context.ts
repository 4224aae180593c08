import type Redis from 'ioredis';
import type { Config } from './config';
import type { Db } from './db/knex';
import { FlagService } from './http/flags';
import { MemoryCache, RedisCache, type Cache } from './infra/cache';
import type { Logger } from './infra/logger';
import { JobWorker } from './jobs/queue';
import type { CredentialResolver } from './http/credentials';
import { anonymousResolver } from './http/credentials';

/**
 * Everything a handler, service or job may use. Built once per process (or per test app).
 * Integrations (identity provider, payments, mail, ...) hang off this object so that tests
 * can swap in local implementations.
 */
export interface AppContext {
  config: Config;
  db: Db;
  log: Logger;
  redis: Redis | null;
  cache: Cache;
  flags: FlagService;
  jobs: JobWorker;
  credentials: CredentialResolver;
}

export function createContext(deps: { config: Config; db: Db; log: Logger; redis?: Redis | null }): AppContext {
  const redis = deps.redis ?? null;
  const ctx: AppContext = {
    config: deps.config,
    db: deps.db,
    log: deps.log,
    redis,
    cache: redis ? new RedisCache(redis) : new MemoryCache(),
    flags: new FlagService(deps.db),
    jobs: new JobWorker(deps.db, deps.log),
    credentials: anonymousResolver,
  };
  return ctx;
}
