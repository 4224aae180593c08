import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type Redis from 'ioredis';
import type { Config } from '../config';
import { sendCognitoFault, speaksCognito } from '../integrations/idp/cognito-faults';
import { circuitOf } from '../infra/redis';
import { clientIp } from './client-ip';
import { recordRateLimitRefusal } from '../infra/metrics';
import { ResilientStore } from './resilient-store';
import { CountingStore } from './counting-store';
import { actorOrNull, type CredentialResolver } from './credentials';
import { withRequestId } from './errors';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The 429 message of the limiters the spec gives no wording of their own. */
export const GENERIC = 'Too many requests, please try again later.';

type KeyKind = 'ip' | 'user' | 'ip+user' | 'ip+campaign' | 'account' | 'caller';

export interface LimiterSpec {
  windowMs: number;
  limit: (config: Config) => number;
  key: KeyKind;
  message: string;
  /** Count only requests that succeed (a quota of things made, e.g. generated images); failures and 429s are given back. */
  successesOnly?: boolean;
}

/**
 * A named limiter: one bucket set (store prefix `rl:<name>:`) shared by every route that names
 * it. A module's own limiter is declared in its routes file and listed in its module file's
 * `limiters`; routes name it by the object, so a typo cannot compile.
 */
export interface Limiter {
  readonly name: string;
  readonly spec: LimiterSpec;
}

export function defineLimiter(name: string, spec: LimiterSpec): Limiter {
  return { name, spec };
}

export const fixed = (n: number) => () => n;

/**
 * The limiters of the spec's "Rate limits" table that several modules use (routes name them by
 * string); each module's own limiters live in the module (src/modules/index.ts collects them).
 */
export const SHARED_LIMITERS = {
  global: defineLimiter('global', { windowMs: MINUTE, limit: fixed(100), key: 'ip', message: GENERIC }),
  public: defineLimiter('public', { windowMs: MINUTE, limit: fixed(300), key: 'ip', message: GENERIC }),
  auth: defineLimiter('auth', { windowMs: MINUTE, limit: fixed(10), key: 'ip', message: 'Too many authentication attempts, please try again later.' }),
  verificationResend: defineLimiter('verificationResend', {
    windowMs: MINUTE,
    limit: fixed(5),
    key: 'user',
    message: 'You have requested several verification emails in a row. Please wait a minute and try again.',
  }),
  strict: defineLimiter('strict', { windowMs: MINUTE, limit: fixed(5), key: 'ip', message: 'Rate limit exceeded for sensitive operation.' }),
  authenticated: defineLimiter('authenticated', {
    windowMs: MINUTE,
    limit: fixed(100),
    key: 'ip',
    message: 'Too many requests from this account, please try again later.',
  }),
  // The GIF reads and comments that carry a GIF share one bucket.
  gifs: defineLimiter('gifs', { windowMs: MINUTE, limit: fixed(60), key: 'user', message: 'Too many GIF requests. Please wait a minute and try again.' }),
};

/** A shared limiter a route may name by string (the global one applies unless a route skips it). */
export type SharedLimiterName = Exclude<keyof typeof SHARED_LIMITERS, 'global'>;

/** Paths served by the app itself rather than a route table (the OpenAPI document, Swagger UI's assets). */
const APP_SKIP: Array<{ method: string; path: RegExp }> = [{ method: 'GET', path: /^\/openapi\.json$|^\/docs(\/.*)?$/ }];

/** A route's Express path as an anchored pattern: `:name` is one segment; a trailing slash is allowed. */
function routePattern(fullPath: string): RegExp {
  const body = fullPath
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

export type GlobalSkip = (method: string, path: string) => boolean;

/**
 * Which requests skip the global limiter (paths relative to /api/v1; the health checks live
 * outside it): the routes that declare `skipGlobalLimiter`, from the route tables the app mounts.
 * Public reads that carry both buckets (/locations, /leaderboard, /achievements/*, /platform/*)
 * do not declare it.
 */
export function globalSkipper(modules: Array<{ prefix: string; root?: boolean; routes: Array<{ method: string; path: string; skipGlobalLimiter?: boolean }> }>): GlobalSkip {
  const skips = [...APP_SKIP];
  for (const m of modules) {
    if (m.root) continue;
    for (const r of m.routes) if (r.skipGlobalLimiter) skips.push({ method: r.method.toUpperCase(), path: routePattern(m.prefix + r.path) });
  }
  return (method, path) => skips.some((s) => s.method === method && s.path.test(path));
}

function keyFor(kind: KeyKind, resolver: CredentialResolver) {
  return async (req: Request): Promise<string> => {
    const ip = clientIp(req);
    switch (kind) {
      case 'ip':
        return ip;
      case 'ip+campaign':
        return `${ip}|${String(req.params?.id ?? '')}`;
      case 'account': {
        const body = req.body as { accountId?: unknown } | undefined;
        if (typeof body?.accountId === 'string') return `acct:${body.accountId}`;
        const actor = await actorOrNull(req, resolver);
        return actor ? `user:${actor.userId}` : `ip:${ip}`;
      }
      case 'ip+user': {
        const actor = await actorOrNull(req, resolver);
        return `${ip}|${actor?.userId ?? '-'}`;
      }
      case 'user':
      case 'caller': {
        const actor = await actorOrNull(req, resolver);
        return actor ? `user:${actor.userId}` : `ip:${ip}`;
      }
    }
  };
}

function draft6Headers(res: Response, limit: number, remaining: number, windowMs: number, resetTime?: Date) {
  const resetSeconds = resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(windowMs / 1000);
  res.setHeader('RateLimit-Policy', `${limit};w=${Math.ceil(windowMs / 1000)}`);
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, remaining)));
  res.setHeader('RateLimit-Reset', String(resetSeconds));
  return resetSeconds;
}

/** One middleware per limiter, by name; `global` is always there. */
export type Limiters = Record<string, RequestHandler> & { global: RequestHandler };

export function storeFor(name: string, redis: Redis | null, prefix = 'rl:'): Store | undefined {
  if (!redis) return undefined; // in-process counts (CountingStore, or express-rate-limit's MemoryStore)
  const shared = new RedisStore({
    prefix: `${prefix}${name}:`,
    sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
  });
  // Counts per process while Redis is unreachable: a limit never fails open.
  return new ResilientStore(shared, circuitOf(redis));
}

/**
 * Builds one middleware per limiter of `limiters` (the shared ones and every module's, as
 * src/modules/index.ts collects them). Each limiter is one bucket set shared by every route that
 * names it. Headers are the draft-6 set; the global limiter only writes them on its own 429, so
 * operations with no named limiter send no RateLimit headers. `skipGlobal`: which requests the
 * global limiter lets through uncounted (globalSkipper over the mounted route tables).
 */
export function createLimiters(
  config: Config,
  redis: Redis | null,
  resolver: CredentialResolver,
  skipGlobal: GlobalSkip = globalSkipper([]),
  limiters: readonly Limiter[] = Object.values(SHARED_LIMITERS),
): Limiters {
  const out: Record<string, RequestHandler> = {};
  for (const { name, spec } of limiters) {
    if (out[name]) throw new Error(`two limiters are named ${name}`);
    out[name] = buildLimiter(name, spec, config, redis, keyFor(spec.key, resolver), skipGlobal);
  }
  if (!out.global) throw new Error('the global limiter is missing');
  return out as Limiters;
}

const HANDLER_KEY = Symbol('handler-limiter-key');
const handlerLimiters = new WeakMap<object, Map<string, RequestHandler>>();

/**
 * Applies a limiter whose key only the handler can know, after its own checks: payout refresh
 * counts per processor account, the one the request resolves to (the caller's own when the body
 * names none), so the same account is one bucket however it is named, and an unknown or foreign
 * id (404) never spends a real account's bucket. Same store, headers and 429 body as the
 * other limiters; one middleware per `owner` (the app context) and limiter. Answers false when it sent the 429.
 */
export function limitByKey(
  owner: { config: Config; redis: Redis | null },
  limiter: Limiter,
  key: string,
  req: Request,
  res: Response,
): Promise<boolean> {
  const { name, spec } = limiter;
  let mine = handlerLimiters.get(owner);
  if (!mine) handlerLimiters.set(owner, (mine = new Map()));
  let mw = mine.get(name);
  if (!mw) {
    mw = buildLimiter(name, spec, owner.config, owner.redis, (r) => String((r as Request & { [HANDLER_KEY]?: string })[HANDLER_KEY]));
    mine.set(name, mw);
  }
  (req as Request & { [HANDLER_KEY]?: string })[HANDLER_KEY] = `${spec.key}:${key}`;
  const middleware = mw;
  return new Promise((resolve, reject) => {
    const ran = Promise.resolve(middleware(req, res, (err?: unknown) => (err ? reject(err) : resolve(true))));
    // Without a call to next, the limiter has answered the 429 itself.
    ran.then(() => res.headersSent && resolve(false), reject);
  });
}

/** What a limiter middleware counts with: the read cache's fast path counts in the same buckets. */
export interface LimiterCounter {
  name: string;
  spec: LimiterSpec;
  limit: number;
  store: Store | CountingStore;
}

const counters = new WeakMap<RequestHandler, LimiterCounter>();

/** The buckets behind a middleware built here (undefined for any other middleware). */
export function counterOf(mw: RequestHandler): LimiterCounter | undefined {
  return counters.get(mw);
}

function buildLimiter(
  name: string,
  spec: LimiterSpec,
  config: Config,
  redis: Redis | null,
  keyGenerator: (req: Request) => string | Promise<string>,
  skipGlobal?: GlobalSkip,
): RequestHandler {
  const isGlobal = name === 'global';
  const retryAfter = Math.ceil(spec.windowMs / 1000);
  const limit = spec.limit(config);
  const store = storeFor(name, redis, config.RATE_LIMIT_PREFIX) ?? new CountingStore();
  const mw = rateLimit({
    windowMs: spec.windowMs,
    limit,
    standardHeaders: isGlobal ? false : 'draft-6',
    legacyHeaders: false,
    store,
    keyGenerator,
    skip: isGlobal && skipGlobal ? (req) => skipGlobal(req.method, req.path) : undefined,
    skipFailedRequests: spec.successesOnly ?? false,
    // The store falls back to per-process counts while Redis is away, so it does not fail; should
    // it ever, the request passes rather than taking the API down.
    passOnStoreError: true,
    validate: { xForwardedForHeader: false, keyGeneratorIpFallback: false },
    handler: (req, res, _next, options) => {
      recordRateLimitRefusal(name);
      const info = (req as Request & { rateLimit?: { limit: number; remaining: number; resetTime?: Date } }).rateLimit;
      const live = draft6Headers(res, options.limit as number, 0, spec.windowMs, info?.resetTime);
      res.setHeader('Retry-After', String(live));
      // The AWS SDK (native apps on POST /local-idp/) reads only Cognito's fault shape; it backs off on this one.
      if (speaksCognito(req)) return sendCognitoFault(res, 'TooManyRequestsException', spec.message);
      res.status(429).json(withRequestId(req, { error: spec.message, retryAfter }));
    },
  });
  counters.set(mw, { name, spec, limit, store });
  return mw;
}
