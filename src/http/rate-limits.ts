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
import { actorOrNull, type CredentialResolver } from './credentials';
import { withRequestId } from './errors';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const GENERIC = 'Too many requests, please try again later.';

type KeyKind = 'ip' | 'user' | 'ip+user' | 'ip+campaign' | 'account' | 'caller';

interface LimiterSpec {
  windowMs: number;
  limit: (config: Config) => number;
  key: KeyKind;
  message: string;
  /** Count only requests that succeed (a quota of things made, e.g. generated images); failures and 429s are given back. */
  successesOnly?: boolean;
}

const fixed = (n: number) => () => n;

/** Every limiter of the spec's "Rate limits" table: window, cap, key and 429 message. */
export const LIMITERS = {
  global: { windowMs: MINUTE, limit: fixed(100), key: 'ip', message: GENERIC },
  public: { windowMs: MINUTE, limit: fixed(300), key: 'ip', message: GENERIC },
  auth: { windowMs: MINUTE, limit: fixed(10), key: 'ip', message: 'Too many authentication attempts, please try again later.' },
  verificationResend: {
    windowMs: MINUTE,
    limit: fixed(5),
    key: 'user',
    message: 'You have requested several verification emails in a row. Please wait a minute and try again.',
  },
  strict: { windowMs: MINUTE, limit: fixed(5), key: 'ip', message: 'Rate limit exceeded for sensitive operation.' },
  authenticated: {
    windowMs: MINUTE,
    limit: fixed(100),
    key: 'ip',
    message: 'Too many requests from this account, please try again later.',
  },
  referralClicks: { windowMs: MINUTE, limit: fixed(120), key: 'caller', message: GENERIC },
  presence: { windowMs: MINUTE, limit: fixed(4), key: 'ip+campaign', message: GENERIC },
  cardShare: { windowMs: MINUTE, limit: (c) => c.CARD_SHARE_RATE_LIMIT, key: 'ip', message: GENERIC },
  orgCreation: {
    windowMs: HOUR,
    limit: fixed(5),
    key: 'ip+user',
    message: 'Too many organization registrations. Please try again later.',
  },
  memberLookup: {
    windowMs: MINUTE,
    limit: fixed(30),
    key: 'user',
    message: 'Too many member lookups. Please wait a minute and try again.',
  },
  media: {
    windowMs: 15 * MINUTE,
    limit: fixed(30),
    key: 'ip+user',
    message: 'Too many media uploads. Please try again in a few minutes.',
  },
  aiImageHourly: {
    windowMs: HOUR,
    limit: fixed(10),
    key: 'user',
    message: 'You have generated several images in a short time. Please try again later.',
    successesOnly: true,
  },
  aiImageDaily: {
    windowMs: DAY,
    limit: fixed(30),
    key: 'user',
    message: "You have reached today's limit for AI image generation. Please try again tomorrow.",
    successesOnly: true,
  },
  gifs: { windowMs: MINUTE, limit: fixed(60), key: 'user', message: 'Too many GIF requests. Please wait a minute and try again.' },
  payoutRefresh: { windowMs: MINUTE, limit: fixed(1), key: 'account', message: GENERIC },
} satisfies Record<string, LimiterSpec>;

export type LimiterName = Exclude<keyof typeof LIMITERS, 'global'>;

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

export type Limiters = Record<keyof typeof LIMITERS, RequestHandler>;

export function storeFor(name: string, redis: Redis | null, prefix = 'rl:'): Store | undefined {
  if (!redis) return undefined; // express-rate-limit's in-process MemoryStore
  const shared = new RedisStore({
    prefix: `${prefix}${name}:`,
    sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
  });
  // Counts per process while Redis is unreachable: a limit never fails open.
  return new ResilientStore(shared, circuitOf(redis));
}

/**
 * Builds one middleware per named limiter. Each limiter is one bucket set shared by every
 * route that names it. Headers are the draft-6 set; the global limiter only writes them on its
 * own 429, so operations with no named limiter send no RateLimit headers.
 */
/** `skipGlobal`: which requests the global limiter lets through uncounted (globalSkipper over the mounted route tables). */
export function createLimiters(config: Config, redis: Redis | null, resolver: CredentialResolver, skipGlobal: GlobalSkip = globalSkipper([])): Limiters {
  const out = {} as Limiters;
  for (const [name, spec] of Object.entries(LIMITERS) as Array<[keyof typeof LIMITERS, LimiterSpec]>) {
    out[name] = buildLimiter(name, spec, config, redis, keyFor(spec.key, resolver), skipGlobal);
  }
  return out;
}

const HANDLER_KEY = Symbol('handler-limiter-key');
const handlerLimiters = new WeakMap<object, Map<string, RequestHandler>>();

/**
 * Applies a limiter whose key only the handler can know, after its own checks: payout refresh
 * counts per processor account, the one the request resolves to (the caller's own when the body
 * names none), so the same account is one bucket however it is named, and an unknown or foreign
 * id (404) never spends a real account's bucket. Same store, headers and 429 body as the
 * table's limiters; one middleware per `owner` (the app context). Answers false when it sent the 429.
 */
export function limitByKey(
  owner: { config: Config; redis: Redis | null },
  name: 'payoutRefresh',
  key: string,
  req: Request,
  res: Response,
): Promise<boolean> {
  let mine = handlerLimiters.get(owner);
  if (!mine) handlerLimiters.set(owner, (mine = new Map()));
  let mw = mine.get(name);
  if (!mw) {
    mw = buildLimiter(name, LIMITERS[name], owner.config, owner.redis, (r) => String((r as Request & { [HANDLER_KEY]?: string })[HANDLER_KEY]));
    mine.set(name, mw);
  }
  (req as Request & { [HANDLER_KEY]?: string })[HANDLER_KEY] = `${LIMITERS[name].key}:${key}`;
  const limiter = mw;
  return new Promise((resolve, reject) => {
    const ran = Promise.resolve(limiter(req, res, (err?: unknown) => (err ? reject(err) : resolve(true))));
    // Without a call to next, the limiter has answered the 429 itself.
    ran.then(() => res.headersSent && resolve(false), reject);
  });
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
  return rateLimit({
    windowMs: spec.windowMs,
    limit: spec.limit(config),
    standardHeaders: isGlobal ? false : 'draft-6',
    legacyHeaders: false,
    store: storeFor(name, redis, config.RATE_LIMIT_PREFIX),
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
}
