import type Redis from 'ioredis';
import type { Config } from './config';
import type { AppContext } from './context';
import type { Db } from './db/knex';
import { directConnection } from './infra/db-endpoints';
import { createReplicas } from './db/replicas';
import { FlagService } from './http/flags';
import { Lifecycle } from './http/lifecycle';
import { MemoryCache, ResilientCache } from './infra/cache';
import { ReadCache } from './http/read-cache/read-cache';
import { countedReadCache } from './http/read-cache/read-cache-metrics';
import type { Logger } from './infra/logger';
import { JobWorker } from './infra/jobs';
import { anonymousResolver } from './http/credentials';
import { createIdentityProvider } from './integrations/idp';
import { createCredentialResolver } from './modules/auth';
import { createReviewer } from './integrations/review';
import { createMailer } from './integrations/mail/mailer';
import { createPaymentProcessor } from './integrations/payments';
import { createStorage } from './integrations/storage';

/**
 * Builds a process's AppContext (the type lives in context.ts, which every module imports; this
 * file, which imports the modules that build parts of it, is imported only by the entry points
 * and tests, so no module reaches itself through the context).
 */

const cacheBounds = (c: Config) => ({ maxEntries: c.CACHE_MAX_ENTRIES, maxBytes: c.CACHE_MAX_MB * 1024 * 1024 });

export function createContext(deps: { config: Config; db: Db; log: Logger; redis?: Redis | null }): AppContext {
  const redis = deps.redis ?? null;
  const replicas = createReplicas(deps.db, {
    urls: deps.config.DATABASE_REPLICA_URLS ?? [],
    maxLagMs: deps.config.REPLICA_MAX_LAG_MS,
    redis,
    log: deps.log,
    statementTimeoutMs: deps.config.DB_STATEMENT_TIMEOUT_MS,
    redisPrefix: `${deps.config.RATE_LIMIT_PREFIX}ryw:`,
  });
  const ctx: AppContext = {
    config: deps.config,
    db: deps.db,
    replicas,
    log: deps.log,
    redis,
    cache: redis ? new ResilientCache(redis, cacheBounds(deps.config)) : new MemoryCache(cacheBounds(deps.config)),
    readCache: (deps.config.READ_CACHE ?? deps.config.NODE_ENV !== 'test') ? countedReadCache(new ReadCache({ connection: directConnection(deps.db), log: deps.log, redis, maxBytes: deps.config.READ_CACHE_MAX_MB * 1024 * 1024, onInvalidate: () => replicas.fence(), readFloor: () => replicas.readFloor() })) : null,
    flags: new FlagService(deps.db),
    jobs: new JobWorker(deps.db, deps.log, { concurrency: deps.config.JOBS_CONCURRENCY }),
    lifecycle: new Lifecycle(),
    credentials: anonymousResolver,
    idp: createIdentityProvider(deps.config, deps.db),
    review: createReviewer(deps.config, deps.db, deps.log),
    mailer: createMailer(deps.config, deps.log),
    payments: createPaymentProcessor(deps.config, deps.db),
    storage: createStorage(deps.config),
  };
  // The real resolver reads ctx.idp per request, so a provider swapped in by a test takes effect.
  ctx.credentials = createCredentialResolver(ctx);
  return ctx;
}
