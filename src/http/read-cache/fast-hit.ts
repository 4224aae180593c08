import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { assignRequestId, logAnswered, type Logger } from '../../infra/logger';
import { observeAnswer, routeOf } from '../../infra/metrics';
import { ifNoneMatchHits, type PreparedAnswer } from '../caching';
import { clientIp } from '../client-ip';
import { CountingStore } from '../counting-store';
import { templateOf, type HeaderTemplate } from './fast-hit-headers';
import { counterOf, type LimiterCounter } from '../rate-limits';
import type { ReadCache } from './read-cache';
import type { FastTicket } from './read-cache-routes';

/** A read-cached route as the fast path answers it: its metrics label and its one per-IP limiter. */
interface FastRoute {
  label: string | null;
  counter: LimiterCounter;
  policy: string;
  limit: string;
  windowSeconds: number;
}

/**
 * What the fast path reads of a route's declaration (define-routes.ts's RouteDef has these
 * fields; named here so this file need not import the route builder that imports it).
 */
export interface FastRouteFacts {
  auth: unknown;
  readCache?: boolean;
  skipGlobalLimiter?: boolean;
  flag?: string;
  policy?: unknown;
  limiters?: readonly unknown[];
}

interface Learned {
  key: string;
  route: FastRoute;
}

/** Bounds what arbitrary URLs can make the fast path remember (all of it is forgotten at the bound). */
const MAX_LEARNED = 10_000;
const MAX_SIGNATURE = 2_048;

/**
 * The read cache's fast path: a guest GET whose answer is a fresh read-cache entry is answered
 * before Express's router, body parsers and route pipeline, with what the full path would send
 * (test/api/fast-hit.test.ts compares the two, headers included): the request id, the security
 * and CORS headers, the route's per-IP limit counted in the same buckets (a refusal goes to the
 * full path, which answers its 429), ETag/304, Vary, the request log and metrics.
 *
 * Which cache key a URL reads is learned from the full path, never derived here: the route's
 * handler works the key out (zod validation, the list's filter parsing) and the read cache tells
 * the route's ticket; the next request for the same URL (and Accept-Language, the one header the
 * keys depend on) finds it. So only requests whose answer can depend on nothing else are taken:
 * GET, no Cookie (session, `lang`), no Authorization, no body, and no Origin while partner CORS
 * (whose answer depends on it) is configured. Anything else, an unknown URL, a stale or missing
 * entry, or a cache that is not listening, takes the full path unchanged.
 */
export class FastHits {
  private readonly learned = new Map<string, Learned>();
  private readonly templates = new WeakMap<PreparedAnswer, [HeaderTemplate, HeaderTemplate]>();

  constructor(
    private readonly cache: ReadCache,
    /** The app's security + CORS middleware: run once per answer on a recorder, never per request. */
    private readonly statics: RequestHandler,
    private readonly log: Logger,
    private readonly partnerCors: boolean,
  ) {}

  /**
   * The ticket of a route the fast path can answer, or null: a read-cached guest read with no
   * flag, policy or global limit, and exactly one unconditional per-IP limiter counting every request.
   */
  ticketFor(def: FastRouteFacts, limiterMws: RequestHandler[]): FastTicket | null {
    const ref = def.limiters?.[0];
    if (!def.readCache || !def.skipGlobalLimiter || def.flag || def.policy || (def.auth !== 'none' && def.auth !== 'optional')) return null;
    if (limiterMws.length !== 1 || ref === undefined || (typeof ref === 'object' && ref !== null && 'when' in ref)) return null;
    const counter = counterOf(limiterMws[0]!);
    if (!counter || counter.spec.key !== 'ip' || counter.spec.successesOnly) return null;
    const windowSeconds = Math.ceil(counter.spec.windowMs / 1000);
    const route: FastRoute = { label: null, counter, policy: `${counter.limit};w=${windowSeconds}`, limit: String(counter.limit), windowSeconds };
    return {
      learn: (req, key) => {
        const sig = this.signature(req);
        if (sig === null) return;
        route.label ??= routeOf(req);
        if (this.learned.size >= MAX_LEARNED && !this.learned.has(sig)) this.learned.clear();
        this.learned.set(sig, { key, route });
      },
    };
  }

  /** What identifies a request's answer here, or null when the request must take the full path. */
  private signature(req: IncomingMessage & { originalUrl?: string }): string | null {
    if (req.method !== 'GET') return null;
    const h = req.headers;
    if (h.cookie !== undefined || h.authorization !== undefined) return null;
    // A body, even on a GET, goes through the full path's parsers (a malformed one answers 400).
    if (h['content-length'] !== undefined || h['transfer-encoding'] !== undefined) return null;
    if (this.partnerCors && h.origin !== undefined) return null;
    // Express rewrites req.url while routing (mount paths); originalUrl is the URL as sent.
    const url = req.originalUrl ?? req.url ?? '';
    const lang = h['accept-language'];
    const sig = lang === undefined ? url : `${url}\n${lang}`;
    return sig.length > MAX_SIGNATURE ? null : sig;
  }

  /** Answers a fresh hit, or calls `fullPath` (synchronously unless the limiter's buckets are in Redis). */
  handle(req: Request, res: Response, fullPath: () => void): void {
    const start = process.hrtime.bigint();
    const sig = this.signature(req);
    const learned = sig === null ? undefined : this.learned.get(sig);
    const answer = learned === undefined ? null : this.cache.freshAnswer(learned.key);
    if (learned === undefined || answer === null) return fullPath();
    const { counter } = learned.route;
    const ipKey = clientIp(req);
    const store = counter.store;
    if (store instanceof CountingStore) {
      const bucket = store.hit(ipKey);
      // Over the limit: given back, so the full path's limiter counts it once and answers the 429.
      if (bucket.hits > counter.limit) {
        store.unhit(ipKey);
        return fullPath();
      }
      return this.answer(req, res, learned.route, answer, bucket.hits, bucket.resetAt, start);
    }
    // Shared buckets (Redis): one round trip, as the full path's limiter makes.
    Promise.resolve(store.increment(ipKey)).then(
      async (r) => {
        const still = this.cache.freshAnswer(learned.key);
        if (r.totalHits > counter.limit || still === null) {
          await store.decrement?.(ipKey);
          return fullPath();
        }
        this.answer(req, res, learned.route, still, r.totalHits, r.resetTime?.getTime(), start);
      },
      // A store that fails: the full path's limiter decides (it passes the request on a store error).
      () => fullPath(),
    ).catch(() => {
      if (!res.headersSent) fullPath();
    });
  }

  private answer(req: Request, res: Response, route: FastRoute, a: PreparedAnswer, hits: number, resetAt: number | undefined, start: bigint): void {
    let pair = this.templates.get(a);
    if (pair === undefined) {
      pair = [templateOf(this.statics, a, false), templateOf(this.statics, a, true)];
      this.templates.set(a, pair);
    }
    const t = pair[a.status === 200 && ifNoneMatchHits(req.headers['if-none-match'], a.etag) ? 1 : 0];
    const headers = t.flat.slice();
    headers[t.id] = assignRequestId(req);
    headers[t.policy] = route.policy;
    headers[t.limit] = route.limit;
    headers[t.remaining] = String(Math.max(route.counter.limit - hits, 0));
    // express-rate-limit's draft-6 reset: whole seconds left in the window, rounded up.
    headers[t.reset] = String(resetAt === undefined ? route.windowSeconds : Math.max(0, Math.ceil((resetAt - Date.now()) / 1000)));
    this.cache.countHit();
    const startMs = Date.now();
    res.writeHead(t.status, headers);
    res.end(t.body ? a.body : undefined);
    logAnswered(this.log, req, res, startMs);
    observeAnswer('GET', route.label ?? '<unmatched>', t.status, start);
  }
}
