import http from 'node:http';
import express, { type Express, type Request, type RequestHandler } from 'express';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import helmet from 'helmet';
import type { AppContext } from './context';
import { addVary } from './http/caching';
import { buildRouteHandlers, type RouteModule } from './http/define-routes';
import { FastHits } from './http/read-cache/fast-hit';
import { errorHandler, notFoundHandler } from './http/errors';
import { csrfProtection } from './http/csrf';
import { EXPOSED_HEADERS, partnerCors } from './http/cors';
import { buildOpenApi } from './http/openapi/openapi';
import { createLimiters, globalSkipper, type Limiters } from './http/rate-limits';
import { assertUnambiguous, orderRoutes } from './http/route-table';
import { requestLogging } from './infra/logger';
import { httpMetrics, metricsEndpoint, observeDatabase, observeRedis } from './infra/metrics';
import { applyTrustProxy } from './infra/trust-proxy';
import { SWAGGER_UI_DIR } from './modules/docs';
import { limiters as declaredLimiters, modulesFor } from './modules';

export interface BuiltApp {
  app: Express;
  limiters: Limiters;
}

const firstSegment = (path: string) => {
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
};
/** A first segment every URL that matches it spells the same (no parameter, wildcard or group). */
const LITERAL = /^[\w.~-]+$/;

/**
 * Mounts routes most specific first and refuses an ambiguous table (see route-table.ts). Each
 * literal first segment (`fundraisers`, `idp`, ...) gets its own router holding its routes in
 * the table's order, and one map lookup picks it, so a request is tested against a handful of
 * route patterns instead of every route before it. Two routes with different literal first
 * segments never match the same URL, so the order within each router is the table's order.
 * Routes starting with a parameter (none today) come last in the table and are tried last.
 */
function mountAll(mods: RouteModule[], ctx: AppContext, limiters: Limiters, fast: FastHits | null): RequestHandler {
  const routes = orderRoutes(mods);
  assertUnambiguous(routes);
  const bySegment = new Map<string, express.Router>();
  let rest: express.Router | undefined;
  for (const { route, path } of routes) {
    const seg = firstSegment(path);
    // Express matches paths case-insensitively; the map keys and lookups are lower case to match.
    const key = LITERAL.test(seg) ? seg.toLowerCase() : undefined;
    let router = key === undefined ? rest : bySegment.get(key);
    if (!router) {
      router = express.Router();
      if (key === undefined) rest = router;
      else bySegment.set(key, router);
    }
    router[route.method](path, ...buildRouteHandlers(route, ctx, limiters, fast));
  }
  const fallback = rest;
  return (req, res, next) => {
    const router = bySegment.get(firstSegment(req.path).toLowerCase());
    if (!router) return fallback ? fallback(req, res, next) : next();
    if (!fallback) return router(req, res, next);
    // A router ends with done(undefined | null) when no route answered ('router' exits too).
    router(req, res, (err?: unknown) => (err ? next(err) : fallback(req, res, next)));
  };
}

/** The headers a middleware sets when it only depends on its options (helmet; cors for a non-preflight). */
function headersSetBy(mw: RequestHandler, req: Partial<Request>): Array<[string, string]> {
  const set = new Map<string, string>();
  const res = {
    setHeader: (name: string, value: unknown) => set.set(name, String(value)),
    getHeader: (name: string) => set.get(name),
    removeHeader: (name: string) => set.delete(name),
  };
  let done = false;
  void mw(req as Request, res as unknown as express.Response, (err?: unknown) => {
    if (err) throw err;
    done = true;
  });
  if (!done) throw new Error('a static-header middleware did not finish synchronously');
  return [...set];
}

/**
 * Helmet's security headers and the CORS answer to a non-preflight request, computed once:
 * with a fixed allowed origin, cors answers every actual request with the same headers
 * (Access-Control-Allow-Origin = SITE_URL, credentials, Vary: Origin), Origin or not, and helmet's
 * values depend only on its options. The Vary keeps shared caches of the public reads from
 * serving one origin's answer to another. Preflights (OPTIONS) still go through cors itself.
 */
function staticHeaders(config: AppContext['config'], modules: RouteModule[]): { middleware: RequestHandler; partners: boolean } {
  // Helmet defaults, except that a service reached over plain http must not tell browsers to
  // upgrade its own asset requests (the docs page would then fail to load its scripts), nor send
  // Cross-Origin-Opener-Policy, which browsers ignore there with a console error on every page.
  const https = config.PUBLIC_URL.startsWith('https:');
  const secure = headersSetBy(
    helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: https ? [] : null } }, crossOriginOpenerPolicy: https }),
    {},
  );
  const corsMw = cors({ origin: config.SITE_URL, credentials: true, exposedHeaders: EXPOSED_HEADERS });
  const corsHeaders = headersSetBy(corsMw, { method: 'GET', headers: {} });
  const site: RequestHandler = (req, res, next) => {
    if (req.method === 'OPTIONS') return corsMw(req, res, next);
    for (const [name, value] of corsHeaders) {
      if (name === 'Vary') addVary(res, value);
      else res.setHeader(name, value);
    }
    next();
  };
  // CORS_ORIGINS (partner sites) may call the public reads without credentials; see http/cors.ts.
  const partners = partnerCors(config, modules, site);
  const withPartners = partners ?? site;
  return {
    middleware: (req, res, next) => {
      for (const [name, value] of secure) res.setHeader(name, value);
      withPartners(req, res, next);
    },
    partners: partners !== null,
  };
}

/** Whether the request has body bytes to read, as body-parser decides it (type-is's hasBody). */
const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));

/**
 * Express gives every request and response the app's prototypes (`app.handle` calls
 * Object.setPrototypeOf), which makes V8 reshape both objects on every request: measured, that
 * costs more CPU than the rest of the framework together. `app.listen` here creates them from
 * classes whose prototypes are the app's, so that call changes nothing. The prototype chain and
 * methods are the same; a server made elsewhere (supertest's) works as before, just slower.
 */
function bornWithAppPrototypes(app: Express): void {
  class ApiRequest extends http.IncomingMessage {}
  class ApiResponse extends http.ServerResponse {}
  Object.setPrototypeOf(ApiRequest.prototype, app.request);
  Object.setPrototypeOf(ApiResponse.prototype, app.response);
  app.request = ApiRequest.prototype as unknown as Express['request'];
  app.response = ApiResponse.prototype as unknown as Express['response'];
  // Express's own listen, with the classes (and, like it, a listen error goes to the callback).
  app.listen = function listen(...args: unknown[]) {
    const server = http.createServer({ IncomingMessage: ApiRequest, ServerResponse: ApiResponse }, app);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      let called = false;
      const done = (...a: unknown[]) => {
        if (called) return;
        called = true;
        last(...a);
      };
      args[args.length - 1] = done;
      server.once('error', done);
    }
    return server.listen(...(args as Parameters<http.Server['listen']>));
  } as Express['listen'];
}

/** Full paths of the routes that declare `rawBody` (they verify signatures over the exact bytes). */
function rawBodyPathsOf(modules: RouteModule[]): Set<string> {
  return new Set(
    modules.flatMap((m) => m.routes.filter((r) => r.rawBody).map((r) => (m.root ? '' : '/api/v1') + m.prefix + (r.path === '/' ? '' : r.path))),
  );
}

/**
 * Puts the read cache's fast path (http/read-cache/fast-hit.ts) in front of Express: a request it does not
 * answer goes to Express's own handle unchanged. The prototypes are set first, as handle does,
 * so the fast path reads `req.ip` as the routes do (a no-op for a server from app.listen).
 */
function answerHitsFirst(app: Express, fast: FastHits): void {
  const expressHandle = (app as unknown as { handle: (req: Request, res: express.Response, done?: unknown) => void }).handle;
  (app as unknown as { handle: typeof expressHandle }).handle = function handle(req, res, done) {
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    fast.handle(req, res, () => expressHandle.call(app, req, res, done));
  };
}

export interface BuildOptions {
  /** Answer fresh read-cache hits before Express (default true; the comparison test turns it off). */
  fastHits?: boolean;
}

/** The Express app for a context; no listen (tests drive it with supertest). */
export function buildApp(ctx: AppContext, modules: RouteModule[] = modulesFor(ctx.config), opts: BuildOptions = {}): Express {
  const { config } = ctx;
  const app = express();
  app.disable('x-powered-by');
  bornWithAppPrototypes(app);
  applyTrustProxy(app, config.TRUST_PROXY);
  app.use(httpMetrics());
  observeDatabase(ctx.db);
  observeRedis(ctx.redis);
  app.use(requestLogging(app, ctx.log));
  const statics = staticHeaders(config, modules);
  app.use(statics.middleware);
  const fast = ctx.readCache && opts.fastHits !== false ? new FastHits(ctx.readCache, statics.middleware, ctx.log, statics.partners) : null;
  const parseCookies = cookieParser();
  const csrf = csrfProtection(config);
  // Cognito's JSON protocol (POST /local-idp/) sends application/x-amz-json-1.1.
  const jsonTypes = ['application/json', 'application/x-amz-json-1.1'];
  const json = express.json({ limit: config.JSON_BODY_LIMIT, type: jsonTypes });
  const form = express.urlencoded({ extended: false, limit: config.JSON_BODY_LIMIT });
  // Where a route asks for the raw bytes (the Stripe webhook's signature check) they are kept as
  // they came and not parsed as well: the route parses what it verified (a second parse per event).
  const rawBodyPaths = rawBodyPathsOf(modules);
  const raw = express.raw({ limit: config.JSON_BODY_LIMIT, type: jsonTypes });
  const parseBody: RequestHandler = (req, res, next) => json(req, res, (jsonErr?: unknown) => (jsonErr ? next(jsonErr) : form(req, res, next)));
  const keepRaw: RequestHandler = (req, res, next) =>
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      // Not a JSON type: read as any other route's body (the signature check then refuses it).
      if (!Buffer.isBuffer(req.body)) return parseBody(req, res, next);
      (req as Request & { rawBody?: Buffer }).rawBody = req.body;
      req.body = undefined;
      next();
    });
  // Cookies, the CSRF check and body parsing as one step; a request with no body (every guest
  // GET) skips both parsers, leaving req.body undefined as they would.
  app.use((req, res, next) =>
    parseCookies(req, res, () =>
      csrf(req, res, (err?: unknown) => {
        if (err) return next(err);
        if (!hasBody(req)) {
          if (!('body' in (req as object))) req.body = undefined;
          return next();
        }
        (rawBodyPaths.has(req.path) ? keepRaw : parseBody)(req, res, next);
      }),
    ),
  );

  // Routes declare skipGlobalLimiter; the skip list is built from the tables this app mounts.
  const skipsGlobal = globalSkipper(modules);
  const limiters = createLimiters(config, ctx.redis, ctx.credentials, skipsGlobal, declaredLimiters);

  const api = express.Router();
  // The global limiter's own skip runs after its async setup; the same test up front saves it
  // on the public reads, which skip it.
  api.use((req, res, next) => (skipsGlobal(req.method, req.path) ? next() : limiters.global(req, res, next)));
  api.use(mountAll(modules.filter((m) => !m.root), ctx, limiters, fast));

  let openapi: Record<string, unknown> | null = null;
  api.get('/openapi.json', (_req, res) => {
    // Paths carry their /api/v1 prefix (the health checks live outside it) and the server is
    // the relative `/`, so the document works from whichever host serves it.
    openapi ??= buildOpenApi(modules);
    res.json(openapi);
  });
  api.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false }));
  api.use(notFoundHandler);

  app.get('/metrics', metricsEndpoint(config.METRICS_TOKEN));
  app.use(mountAll(modules.filter((m) => m.root), ctx, limiters, fast));
  app.use('/api/v1', api);
  app.use(notFoundHandler);
  app.use(errorHandler);
  if (fast) answerHitsFirst(app, fast);
  return app;
}
