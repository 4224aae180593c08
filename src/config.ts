import { parseAttestationKeys } from './integrations/attestation/keys';
import { z } from 'zod';

// Every setting the process reads (docs/decisions/0021-configuration-from-the-environment.md);
// docs/operations/settings.md and .env.example list them, and tests hold both to this schema.
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const url = z.url();
/** Comma-separated origins (scheme://host[:port]), e.g. partner sites that read the public API. */
const origins = z.string().transform((v, ctx) => {
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  const out: string[] = [];
  for (const o of list) {
    let origin: string | null = null;
    try {
      origin = new URL(o).origin;
    } catch {
      origin = null;
    }
    if (!origin || origin === 'null' || origin !== o.replace(/\/+$/, '')) {
      ctx.addIssue({ code: 'custom', message: `"${o}" is not an origin (scheme://host[:port], no path)` });
      return z.NEVER;
    }
    out.push(origin);
  }
  return out;
});

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_URL: url.optional(),
  SITE_URL: url.default('http://localhost:5173'),
  // Other origins that may call the public reads (auth none or optional) without credentials.
  CORS_ORIGINS: origins.optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  // Set: DATABASE_URL is a transaction-mode pooler (PgBouncer) and this direct connection carries
  // LISTEN, migrations and the job engine (docs/decisions/0014-transaction-mode-pooler.md).
  DATABASE_DIRECT_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  // Hot standbys for guest reads and read-cache fills (src/db/replicas.ts); unset = the primary serves all.
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((v, ctx) => {
      const list = v.split(',').map((s) => s.trim()).filter(Boolean);
      const bad = list.find((u) => !/^postgres(ql)?:\/\/[^/]/.test(u));
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated postgres:// URLs' });
        return z.NEVER;
      }
      return list;
    })
    .optional(),
  // A standby further behind the primary than this is skipped (its reads go to the primary).
  REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(1000),
  DATA_DIR: z.string().min(1).default('.data'),
  // Logical backups (npm run admin -- backup; the worker's daily one): where the archives go
  // (default DATA_DIR/backups) and how many the worker keeps; PG_BIN_DIR: pg_dump/pg_restore's folder.
  BACKUP_DIR: z.string().min(1).optional(),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(1000).default(7),
  // pgBackRest (its own names: the tool reads PGBACKREST_CONFIG and PGBACKREST_STANZA too). With a
  // stanza, backups are pgBackRest's: the worker notes them and verifies the newest weekly (no pg_dump).
  BACKUP_REPO_PATH: z.string().min(1).optional(),
  PGBACKREST_CONFIG: z.string().min(1).optional(),
  PGBACKREST_STANZA: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must be a pgBackRest stanza name').optional(),
  PG_BIN_DIR: z.string().min(1).optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
  TRUST_PROXY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JSON_BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'must look like 100kb or 1mb').default('1mb'),
  RUN_JOBS: bool.default(true),
  // The in-process read cache of the hot guest reads (src/http/read-cache/read-cache.ts); default on, off under NODE_ENV=test.
  READ_CACHE: bool.optional(),
  /** Bearer token GET /metrics requires; unset, /metrics answers loopback clients only. */
  METRICS_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  /** Port `npm run worker` answers GET /metrics on (unset: no listener). */
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** OTLP/HTTP collector; read by src/tracing.ts before the config loads, validated here so a typo stops the start. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().regex(/^https?:\/\//, 'must be an http(s):// URL').optional(),
  /** Jobs one worker process runs at once (graphile-worker concurrency). */
  JOBS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('no-reply@localhost'),
  IDP: z.enum(['local', 'cognito']).default('local'),
  COGNITO_REGION: z.string().optional(),
  COGNITO_USER_POOL_ID: z.string().optional(),
  COGNITO_CLIENT_ID: z.string().optional(),
  COGNITO_CLIENT_SECRET: z.string().optional(),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_/, 'must start with sk_ or rk_').optional(),
  // One or more signing secrets, comma-separated: during a roll the processor signs with both (src/integrations/payments/webhook-secret.ts).
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .refine((v) => v.split(',').every((s) => /^whsec_\S+$/.test(s.trim())), 'each comma-separated secret must start with whsec_')
    .optional(),
  STRIPE_API_URL: url.optional(),
  // Sandbox processor (no STRIPE_SECRET_KEY): where its signed events go (default: this process's own
  // webhook route on 127.0.0.1:PORT) and how long a connected account's payout takes to settle.
  // `off`: no deliveries at all (the recheck and the event catch-up recover every payment).
  SANDBOX_WEBHOOK_URL: z.union([z.literal('off'), url]).optional(),
  SANDBOX_PAYOUT_DELAY_S: z.coerce.number().int().min(0).max(30 * 86_400).default(60),
  // Missed processor events (docs/decisions/0016-recovery-and-reconciliation.md): a payment still pending this long after it
  // started is asked about at the processor every PAYMENT_RECHECK_INTERVAL_S, for up to 3 days;
  // the event catch-up runs on the same interval.
  PAYMENT_RECHECK_AFTER_S: z.coerce.number().int().min(0).max(3 * 86_400).default(900),
  PAYMENT_RECHECK_INTERVAL_S: z.coerce.number().int().min(60).max(86_400).default(300),
  // The platform's fee on the campaign's part of each gift, in basis points (0 = tips fund the platform).
  PLATFORM_FEE_BPS: z.coerce.number().int().min(0).max(5_000).default(0),
  CAPTCHA_SECRET: z.string().min(1).optional(),
  CAPTCHA_VERIFY_URL: url.default('https://www.google.com/recaptcha/api/siteverify'),
  // A JWKS document with the public keys that sign native-app attestations (X-App-Attestation).
  APP_ATTESTATION_KEYS: z
    .string()
    .optional()
    .superRefine((v, c) => {
      if (v === undefined) return;
      try {
        parseAttestationKeys(v);
      } catch (err) {
        c.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  OAUTH_PROVIDER_A_ISSUER: url.optional(),
  OAUTH_PROVIDER_A_CLIENT_ID: z.string().min(1).optional(),
  OAUTH_PROVIDER_A_CLIENT_SECRET: z.string().min(1).optional(),
  OAUTH_PROVIDER_B_ISSUER: url.optional(),
  OAUTH_PROVIDER_B_CLIENT_ID: z.string().min(1).optional(),
  OAUTH_PROVIDER_B_CLIENT_SECRET: z.string().min(1).optional(),
  CARD_SHARE_RATE_LIMIT: z.coerce.number().int().min(1).default(120),
  // Content review: unset = deterministic rules reviewer; set = LLM-backed reviewer adapter (see integrations/review).
  REVIEW_LLM_URL: url.optional(),
  REVIEW_LLM_API_KEY: z.string().min(1).optional(),
  // Machine translation of project updates and milestones (LibreTranslate-compatible); unset = none.
  TRANSLATE_URL: url.optional(),
  TRANSLATE_API_KEY: z.string().min(1).optional(),
  // Ranked search (GET /fundraisers?q=): at most SEARCH_CONCURRENCY run at once per process (and never
  // more than half the database pool), SEARCH_QUEUE_MAX wait up to SEARCH_QUEUE_TIMEOUT_MS, the rest get
  // 503; each search's statements are cancelled by Postgres after SEARCH_STATEMENT_TIMEOUT_MS (503 too).
  SEARCH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  SEARCH_QUEUE_MAX: z.coerce.number().int().min(0).max(10_000).default(32),
  SEARCH_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(2000),
  SEARCH_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(3000),
  // Outages (docs/decisions/0011-outages-answer-503.md): a request waits at most DB_ACQUIRE_TIMEOUT_MS for a pooled connection,
  // and Postgres cancels a request's statement after DB_STATEMENT_TIMEOUT_MS; either answers 503
  // DATABASE_UNAVAILABLE. HTTP_IDLE_TIMEOUT_MS closes a connection that sends nothing for that long.
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(2000),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
  // SIGTERM: /readyz answers 503 and the process keeps serving SHUTDOWN_DRAIN_MS (the load balancer's
  // time to notice), then stops accepting and gives requests and jobs in flight SHUTDOWN_TIMEOUT_MS.
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(25_000),
  // Open live streams (GET /fundraisers/{id}/live) one API process serves; 503 with Retry-After beyond.
  LIVE_MAX_STREAMS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  // Bounds of the in-process cache (used when REDIS_URL is unset, and while Redis is unreachable).
  CACHE_MAX_ENTRIES: z.coerce.number().int().min(100).max(10_000_000).default(10_000),
  CACHE_MAX_MB: z.coerce.number().int().min(1).max(100_000).default(32),
  // Bound of the read cache's bodies (READ_CACHE): with CACHE_MAX_MB, what the process may hold in caches.
  READ_CACHE_MAX_MB: z.coerce.number().int().min(1).max(100_000).default(32),
  // Share images (satori + resvg) render in this many worker threads per process; 0 = on the event loop (debugging only).
  RENDER_THREADS: z.coerce.number().int().min(0).max(4).default(1),
  // Uploads and generated images: local disk (STORAGE_DIR, default DATA_DIR/uploads, served under /media/) or an
  // S3-compatible bucket when S3_BUCKET is set; MEDIA_PUBLIC_URL is the base of the URLs handed out.
  STORAGE_DIR: z.string().min(1).optional(),
  S3_ENDPOINT: url.optional(),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name').optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_REGION: z.string().regex(/^[a-z0-9-]{2,32}$/, 'must be a region name such as us-east-1').default('us-east-1'),
  MEDIA_PUBLIC_URL: url.optional(),
  // OpenAI-compatible image generation for AI covers (POST {url}/images/generations); unset = 503.
  IMAGE_GEN_URL: url.optional(),
  IMAGE_GEN_API_KEY: z.string().min(1).optional(),
  // GIF reads through Tenor or GIPHY; GIF_API_URL overrides the provider's base URL; unset provider = empty lists.
  GIF_PROVIDER: z.enum(['tenor', 'giphy']).optional(),
  GIF_API_KEY: z.string().min(1).optional(),
  GIF_API_URL: url.optional(),
  // Outbound webhooks may reach loopback and private addresses (development, tests); link-local never.
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  // Key prefix of the rate-limit buckets in Redis: lets several deployments (or test runs) share one Redis.
  RATE_LIMIT_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 : _ -').default('rl:'),
});

/** Every variable the process reads (.env.example lists them all; a test checks it). */
export const CONFIG_KEYS = Object.keys(schema.shape);

export type Config = z.infer<typeof schema> & { PUBLIC_URL: string; BASE_URL: string };

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError whose message is one line naming the variable. */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings in .env files mean "unset".
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])}: ${issue.message}`);
  }
  const c = parsed.data;
  if (c.IDP === 'cognito') {
    for (const name of ['COGNITO_REGION', 'COGNITO_USER_POOL_ID', 'COGNITO_CLIENT_ID'] as const) {
      if (!c[name]) throw new ConfigError(`Invalid configuration: ${name}: required when IDP=cognito`);
    }
  }
  for (const p of ['A', 'B'] as const) {
    const set = [c[`OAUTH_PROVIDER_${p}_ISSUER`], c[`OAUTH_PROVIDER_${p}_CLIENT_ID`], c[`OAUTH_PROVIDER_${p}_CLIENT_SECRET`]];
    // Half a provider is a typo, not "provider off": say which part is missing.
    if (set.some(Boolean) && !set.every(Boolean)) {
      const missing = ['ISSUER', 'CLIENT_ID', 'CLIENT_SECRET'][set.findIndex((v) => !v)];
      throw new ConfigError(`Invalid configuration: OAUTH_PROVIDER_${p}_${missing}: required when provider_${p.toLowerCase()} is partly configured`);
    }
  }
  if (!c.PGBACKREST_STANZA && (c.BACKUP_REPO_PATH || c.PGBACKREST_CONFIG)) {
    throw new ConfigError(`Invalid configuration: PGBACKREST_STANZA: required when ${c.BACKUP_REPO_PATH ? 'BACKUP_REPO_PATH' : 'PGBACKREST_CONFIG'} is set (the pgBackRest stanza)`);
  }
  if (c.DATABASE_DIRECT_URL && !c.DATABASE_URL) {
    throw new ConfigError('Invalid configuration: DATABASE_URL: required when DATABASE_DIRECT_URL is set (the pooled URL)');
  }
  // S3 settings without a bucket, or one key of the pair alone, is a typo rather than "local disk".
  if (!c.S3_BUCKET && (c.S3_ENDPOINT || c.S3_ACCESS_KEY_ID || c.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('Invalid configuration: S3_BUCKET: required when other S3_* variables are set');
  }
  if (!c.S3_ACCESS_KEY_ID !== !c.S3_SECRET_ACCESS_KEY) {
    throw new ConfigError(`Invalid configuration: ${c.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'}: required with the other S3 key`);
  }
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '');
  return { ...c, SITE_URL: c.SITE_URL.replace(/\/+$/, ''), PUBLIC_URL: publicUrl, BASE_URL: `${publicUrl}/api/v1` };
}

/** For process entry points: a bad value stops the process with one line. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
