import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { z, type ZodType } from 'zod';
import type { AppContext } from '../context';
import type { Actor } from './actor';
import { enforceAuth, type AuthRule } from './auth-rules';
import { hasSessionCookie } from './cookies';
import { actorOf } from './credentials';
import { ApiError, validationError } from './errors';
import { beginIdempotent, idempotencyApplies, keyOf } from './idempotency';
import { captureExample, recordingExamples } from './openapi/openapi-examples';
import type { Limiter, Limiters, SharedLimiterName } from './rate-limits';
import { markReadCached } from './read-cache/read-cache-routes';
import type { FastHits } from './read-cache/fast-hit';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The actor a rule guarantees: present for every rule but 'none' and 'optional'. */
export type ActorFor<A extends AuthRule> = A extends 'none' | 'optional' ? Actor | null : Actor;

export interface HandlerArgs<P, Q, B, A extends AuthRule = AuthRule> {
  req: Request;
  res: Response;
  ctx: AppContext;
  db: AppContext['db'];
  actor: ActorFor<A>;
  params: P;
  query: Q;
  body: B;
}

/** A shared limiter by name or a module's own limiter object (rate-limits.ts defineLimiter). */
export type LimiterUse = SharedLimiterName | Limiter;

/** A limiter, or one applied only when `when` says so (e.g. the GIF bucket for comments with a gif). */
export type LimiterRef = LimiterUse | { name: LimiterUse; when: (req: Request) => boolean };

/**
 * An authorization rule beyond the auth rule, declared next to the route (ownership, an
 * organization permission): it runs after validation and before the handler, and throws the
 * route's 403/404. `describe` is shown in the OpenAPI description.
 */
export interface RoutePolicy<P = any, Q = any, B = any, A extends AuthRule = AuthRule> {
  describe: string;
  check: (args: HandlerArgs<P, Q, B, A>) => unknown | Promise<unknown>;
}

export interface RouteDef<P = any, Q = any, B = any, A extends AuthRule = AuthRule> {
  method: Method;
  /** Express path relative to the module prefix, e.g. '/:id'. */
  path: string;
  summary?: string;
  description?: string;
  auth: A;
  /** Checked after validation, before the handler (ownership, organization permissions). */
  policy?: RoutePolicy<P, Q, B, A>;
  limiters?: LimiterRef[];
  /**
   * Skip the global 100/min bucket: public browsing reads (their own public bucket counts), the
   * Stripe webhook, presence, and routes whose own limiter allows 100 or more a minute (under the
   * global bucket their cap and 429 message could never be reached). The app builds its skip
   * list from these flags (rate-limits.ts globalSkipper).
   */
  skipGlobalLimiter?: boolean;
  /**
   * The route answers guests through the read cache (src/http/read-cache/read-cache.ts). Only a route that
   * declares it may use the cache (ReadCache refuses others), and test/api/read-cache-sources.test.ts
   * runs every such route and checks that each table its SQL reads notifies the cache on commit.
   */
  readCache?: boolean;
  /** Feature flag; when off the route answers 403 with `feature_key`. */
  flag?: string;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
  /** Response schema for the OpenAPI description. */
  response?: ZodType;
  /**
   * Non-JSON response media type for the OpenAPI description (e.g. image/png, text/html); several
   * when the answer's type depends on the request or the file (a statement as PDF or CSV).
   */
  produces?: string | string[];
  /**
   * The request body's media type when it is not JSON (e.g. Cognito's application/x-amz-json-1.1,
   * a sandbox HTML form's application/x-www-form-urlencoded), with its schema for the OpenAPI
   * description. A body of any other type answers 415; without `consumes`, a route with a `body`
   * schema takes application/json only.
   */
  consumes?: { mediaType: string; schema: ZodType };
  status?: number;
  /**
   * Other success statuses the route answers with the same body, and when (e.g. `{ 200: 'Already
   * following: the existing follow' }` beside a 201).
   */
  alsoAnswers?: Record<number, string>;
  /** Documented error statuses beyond the defaults (400/401/403/404/429/500 as applicable). */
  errors?: number[];
  /**
   * Error statuses a page route answers with a page of its `produces` type instead of the Error
   * JSON (the embeddable widget's 404 page, which names nothing); documented so.
   */
  pageErrors?: number[];
  /**
   * For a route that answers its errors in another protocol's shape (the Cognito endpoint's
   * `{ __type, message }`): the statuses it uses, its media type and schema, documented in place
   * of the API's Error body.
   */
  errorResponse?: { statuses: number[]; mediaType: string; schema: ZodType; description: string };
  /** Routes that need the unparsed body (Stripe webhook); they check the body's type themselves. */
  rawBody?: boolean;
  /**
   * Whether the route honours an `Idempotency-Key` header (docs/decisions/0010-idempotency-keys.md): default true for
   * POST (except raw-body routes), false otherwise; false for a whole module via defineRoutes.
   */
  idempotent?: boolean;
  /**
   * Dotted paths of secrets in the JSON answer (`api_key`, `data.secret`): shown in the first
   * answer only; the stored Idempotency-Key copy has them null with `secret_redacted: true`
   * (secret-fields.ts). test/api/idempotency-secrets.test.ts fails for a secret-looking response
   * property that is neither listed here nor on its reasoned allowlist.
   */
  secretFields?: string[];
  /** OpenAPI operationId; derived from method and path when absent. */
  operationId?: string;
  handler: (args: HandlerArgs<P, Q, B, A>) => unknown | Promise<unknown>;
}

export interface RouteModule {
  /** Mount point relative to /api/v1 (or to the server root when `root`). */
  prefix: string;
  tag: string;
  root?: boolean;
  routes: RouteDef[];
}

/**
 * Declares a module's routes; types flow from each route's zod schemas into its handler.
 * `idempotent: false` (and every root module, outside /api/v1) turns Idempotency-Key off for
 * the module's routes that do not declare it themselves.
 */
export function defineRoutes(
  prefix: string,
  routes: RouteDef[],
  opts: { tag?: string; root?: boolean; idempotent?: boolean } = {},
): RouteModule {
  const idempotent = opts.root ? false : opts.idempotent;
  if (idempotent !== undefined) routes = routes.map((r) => (r.idempotent === undefined ? { ...r, idempotent } : r));
  return { prefix, routes, tag: opts.tag ?? (prefix.split('/').filter(Boolean)[0] || 'platform'), root: opts.root };
}

/** Helper so each route's handler is typed from its own schemas. */
export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined, A extends AuthRule = AuthRule>(
  def: RouteDef<P, Q, B, A>,
): RouteDef<P, Q, B, A> {
  return def;
}

// The document shows the format (zod-to-openapi renders a bare guid as any string), so a reader
// sees that `/fundraisers/{id}/stats` can never take `/fundraisers/slug/...`'s literal `slug`.
export const uuid = z
  .guid({ message: 'must be a uuid' })
  .meta({ format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
export const idParams = z.object({ id: uuid });

function parse<T>(schema: ZodType<T> | undefined, value: unknown, where: 'body' | 'query' | 'params'): T {
  if (!schema) return value as T;
  const r = schema.safeParse(value ?? (where === 'body' ? {} : value));
  if (!r.success) throw validationError(r.error, where);
  return r.data;
}

/** The middleware of a limiter; a limiter no module lists in its `limiters` stops the app at start. */
function limiterOf(use: LimiterUse, limiters: Limiters): RequestHandler {
  const name = typeof use === 'string' ? use : use.name;
  const mw = limiters[name];
  if (!mw) throw new Error(`limiter ${name} is used by a route but listed by no module (its module file's \`limiters\`)`);
  return mw;
}

function limiterMiddleware(ref: LimiterRef, limiters: Limiters): RequestHandler {
  if (typeof ref === 'string' || 'spec' in ref) return limiterOf(ref, limiters);
  const mw = limiterOf(ref.name, limiters);
  return (req, res, next) => (ref.when(req) ? mw(req, res, next) : next());
}

/** Whether the request carries body bytes (an empty body with no Content-Type is no body). */
function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * 415 for a body whose Content-Type the route does not take. Browsers send form and text
 * bodies cross-site without a CORS preflight; taking only the declared type keeps such
 * simple requests away from JSON operations.
 */
function checkMediaType(def: RouteDef, req: Request): void {
  if (def.rawBody || (!def.body && !def.consumes)) return;
  // Nothing to misread in an empty body, whatever (if any) Content-Type came with it.
  if (!hasBody(req)) return;
  const accepted = def.consumes ? [def.consumes.mediaType] : ['application/json'];
  if (req.is(accepted)) return;
  throw new ApiError(415, 'Unsupported media type', `The request body must be ${accepted.join(' or ')}`, { accepted });
}

/**
 * The pipeline for one route: limiters -> credentials -> auth rule -> flag -> validation ->
 * idempotency key -> policy -> handler.
 */
export function buildRouteHandlers(def: RouteDef, ctx: AppContext, limiters: Limiters, fast: FastHits | null = null): RequestHandler[] {
  const idempotent = idempotencyApplies(def);
  const limiterMws = (def.limiters ?? []).map((l) => limiterMiddleware(l, limiters));
  // How this route's guest reads teach the read cache's fast path (null: it cannot take them).
  const ticket = def.readCache && fast ? fast.ticketFor(def, limiterMws) : null;
  const run: RequestHandler = async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (recordingExamples) captureExample(def.method, def.body, req, res);
      checkMediaType(def, req);
      const idempotencyKey = idempotent ? keyOf(req) : undefined;
      // Cookie-only routes never look at a bearer: any Authorization header answers 401 Not authenticated.
      const skip = def.auth === 'none' || (def.auth === 'cookie' && !hasSessionCookie(req));
      const actor = skip ? null : await actorOf(req, ctx.credentials);
      enforceAuth(def.auth, actor, req);
      if (def.flag && !(await ctx.flags.isEnabled(def.flag))) {
        throw new ApiError(403, 'Feature disabled', 'This feature is currently turned off', { feature_key: def.flag });
      }
      const params = parse(def.params, req.params, 'params');
      const query = parse(def.query, req.query, 'query');
      const body = parse(def.body, req.body, 'body');
      // enforceAuth has thrown for a missing actor wherever the rule requires one.
      // Claimed after validation (a malformed request is refused the same way every time) and
      // before the policy and handler; a replay or a refusal answers here.
      if (idempotencyKey !== undefined && (await beginIdempotent(ctx, req, res, actor, idempotencyKey, def.secretFields))) return;
      if (def.readCache) markReadCached(res, ticket);
      const args = { req, res, ctx, db: ctx.db, actor: actor as Actor, params, query, body };
      if (def.policy) await def.policy.check(args);
      const result = await def.handler(args);
      // A write answers only once this instance's read cache has taken in what it committed
      // (whichever module wrote which table): the caller's next guest read shows it.
      if (def.method !== 'get' && ctx.readCache) await ctx.readCache.caughtUp();
      // A signed-in caller's write: their next reads wait for a standby that has replayed it (read-your-writes).
      if (def.method !== 'get' && actor && ctx.replicas.enabled) await ctx.replicas.noteWrite(actor.userId);
      if (res.headersSent || res.writableEnded) return;
      const status = def.status ?? 200;
      if (status === 204 || result === undefined) res.status(status === 200 && result === undefined ? 204 : status).end();
      else {
        res.status(status).json(result);
      }
    } catch (err) {
      next(err);
    }
  };
  return [...limiterMws, run];
}
