import type Redis from 'ioredis';
import type { Config } from './config';
import type { Db } from './db/knex';
import type { Replicas } from './db/replicas';
import type { FlagService } from './http/flags';
import type { Cache } from './infra/cache';
import type { ReadCache } from './http/read-cache/read-cache';
import type { Lifecycle } from './http/lifecycle';
import type { Logger } from './infra/logger';
import type { JobWorker } from './infra/jobs';
import type { CredentialResolver } from './http/credentials';
import type { IdentityProvider } from './integrations/idp';
import type { ContentReviewer } from './integrations/review';
import type { Mailer } from './integrations/mail/mailer';
import type { PaymentProcessor } from './integrations/payments';
import type { Storage } from './integrations/storage';

/**
 * Everything a handler, service or job may use. Built once per process (or per test app).
 * Integrations (identity provider, payments, mail, ...) hang off this object so that tests
 * can swap in local implementations.
 */
export interface AppContext {
  config: Config;
  db: Db;
  /** Where guest reads and read-cache fills run: a hot standby within REPLICA_MAX_LAG_MS, else `db` (src/db/replicas.ts). */
  replicas: Replicas;
  log: Logger;
  redis: Redis | null;
  cache: Cache;
  /** The event-invalidated cache of the hot guest reads; null when READ_CACHE is off (tests by default). */
  readCache: ReadCache | null;
  flags: FlagService;
  jobs: JobWorker;
  /** Draining after SIGTERM (/readyz answers 503). */
  lifecycle: Lifecycle;
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
