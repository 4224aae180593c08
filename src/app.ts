import { randomUUID } from 'node:crypto';
import express, { type Express, type Request } from 'express';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import helmet from 'helmet';
import pinoHttp from 'pino-http';
import type { AppContext } from './context';
import { buildRouteHandlers, type RouteModule } from './http/define-routes';
import { errorHandler, notFoundHandler } from './http/errors';
import { csrfProtection } from './http/csrf';
import { buildOpenApi } from './http/openapi';
import { createLimiters, type Limiters } from './http/rate-limits';
import { assertUnambiguous, orderRoutes } from './http/route-table';
import { httpLogSerializers } from './infra/logger';
import { SWAGGER_UI_DIR } from './modules/docs';
import { modulesFor } from './modules';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export interface BuiltApp {
  app: Express;
  limiters: Limiters;
}

/** Mounts routes most specific first and refuses an ambiguous table (see route-table.ts). */
function mountAll(router: express.Router, mods: RouteModule[], ctx: AppContext, limiters: Limiters) {
  const routes = orderRoutes(mods);
  assertUnambiguous(routes);
  for (const { route, path } of routes) router[route.method](path, ...buildRouteHandlers(route, ctx, limiters));
}

/** Full paths of the routes that declare `rawBody` (they verify signatures over the exact bytes). */
function rawBodyPathsOf(modules: RouteModule[]): Set<string> {
  return new Set(
    modules.flatMap((m) => m.routes.filter((r) => r.rawBody).map((r) => (m.root ? '' : '/api/v1') + m.prefix + (r.path === '/' ? '' : r.path))),
  );
}

/** The Express app for a context; no listen (tests drive it with supertest). */
export function buildApp(ctx: AppContext, modules: RouteModule[] = modulesFor(ctx.config)): Express {
  const { config } = ctx;
  const app = express();
  app.disable('x-powered-by');
  if (config.TRUST_PROXY !== undefined) {
    const v = config.TRUST_PROXY;
    app.set('trust proxy', /^\d+$/.test(v) ? Number(v) : v === 'true' ? true : v === 'false' ? false : v);
  }
  app.use(
    pinoHttp({
      logger: ctx.log,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      serializers: httpLogSerializers,
    }),
  );
  // Helmet defaults, except that a service reached over plain http must not tell browsers to
  // upgrade its own asset requests (the docs page would then fail to load its scripts).
  const https = config.PUBLIC_URL.startsWith('https:');
  app.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: https ? [] : null } } }));
  app.use(cors({ origin: config.SITE_URL, credentials: true }));
  app.use(cookieParser());
  app.use(csrfProtection(config));
  // The raw bytes are kept only where a route asks for them (the Stripe webhook's signature check).
  const rawBodyPaths = rawBodyPathsOf(modules);
  app.use(
    express.json({
      limit: config.JSON_BODY_LIMIT,
      // Cognito's JSON protocol (POST /local-idp/) sends application/x-amz-json-1.1.
      type: ['application/json', 'application/x-amz-json-1.1'],
      verify: (req, _res, buf) => {
        if (rawBodyPaths.has((req.url ?? '').split('?')[0])) (req as Request & { rawBody?: Buffer }).rawBody = buf;
      },
    }),
  );
  app.use(express.urlencoded({ extended: false, limit: config.JSON_BODY_LIMIT }));

  const limiters = createLimiters(config, ctx.redis, ctx.credentials);

  const root = express.Router();
  const api = express.Router();
  api.use(limiters.global);
  mountAll(root, modules.filter((m) => m.root), ctx, limiters);
  mountAll(api, modules.filter((m) => !m.root), ctx, limiters);

  let openapi: Record<string, unknown> | null = null;
  api.get('/openapi.json', (_req, res) => {
    // Paths carry their /api/v1 prefix (the health checks live outside it) and the server is
    // the relative `/`, so the document works from whichever host serves it.
    openapi ??= buildOpenApi(modules);
    res.json(openapi);
  });
  api.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false }));
  api.use(notFoundHandler);

  app.use(root);
  app.use('/api/v1', api);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
