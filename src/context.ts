import type Redis from 'ioredis';
import type { Config } from './config';
import type { Db } from './db/knex';
import { FlagService } from './http/flags';
import { MemoryCache, ResilientCache, type Cache } from './infra/cache';
import { ReadCache } from './http/read-cache';
import { countedReadCache } from './http/read-cache-metrics';
import type { Logger } from './infra/logger';
import { JobWorker } from './infra/jobs';
import type { CredentialResolver } from './http/credentials';
import { anonymousResolver } from './http/credentials';
import { createIdentityProvider, type IdentityProvider } from './integrations/idp';
import { createCredentialResolver } from './modules/auth';
import { createReviewer, type ContentReviewer } from './integrations/review';
import { createMailer, type Mailer } from './integrations/mail/mailer';
import { createPaymentProcessor, type PaymentProcessor } from './integrations/payments';
import { createStorage, type Storage } from './integrations/storage';

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
  /** The event-invalidated cache of the hot guest reads; null when READ_CACHE is off (tests by default). */
  readCache: ReadCache | null;
  flags: FlagService;
  jobs: JobWorker;
  credentials: CredentialResolver;
  /** Identity provider (IDP=local built-in, or Cognito); tests may swap it. */
  idp: IdentityProvider;
  /** Content review of campaigns (publish gate): rules reviewer, or LLM-backed when REVIEW_LLM_URL is set. */
  review: ContentReviewer;
  /** Outgoing mail: SMTP when SMTP_URL is set, else logged (mail_outbox keeps every mail). */
  mailer: Mailer;
  /** Payment processor: Stripe when STRIPE_SECRET_KEY is set, else the built-in sandbox. */
  payments: PaymentProcessor;
  /** Uploads and rendered images: local disk, or an S3-compatible bucket when S3_BUCKET is set. */
  storage: Storage;
}

const cacheBounds = (c: Config) => ({ maxEntries: c.CACHE_MAX_ENTRIES, maxBytes: c.CACHE_MAX_MB * 1024 * 1024 });

export function createContext(deps: { config: Config; db: Db; log: Logger; redis?: Redis | null }): AppContext {
  const redis = deps.redis ?? null;
  const ctx: AppContext = {
    config: deps.config,
    db: deps.db,
    log: deps.log,
    redis,
    cache: redis ? new ResilientCache(redis, cacheBounds(deps.config)) : new MemoryCache(cacheBounds(deps.config)),
    readCache: (deps.config.READ_CACHE ?? deps.config.NODE_ENV !== 'test') ? countedReadCache(new ReadCache({ connection: deps.db.client.config.connection, log: deps.log, redis, maxBytes: deps.config.READ_CACHE_MAX_MB * 1024 * 1024 })) : null,
    flags: new FlagService(deps.db),
    jobs: new JobWorker(deps.db, deps.log, { concurrency: deps.config.JOBS_CONCURRENCY }),
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
