import express, { type Request, type RequestHandler } from 'express';
import type { Config } from '../config';
import type { RouteModule } from './define-routes';
import { orderRoutes } from './route-table';

/**
 * What browser code may read from an answer (docs/integrators/credentials.md#browsers-and-cors): rate-limit state, the request
 * id to quote in a support request, the validator for conditional reads, and whether an
 * idempotent POST was replayed.
 */
export const EXPOSED_HEADERS = [
  'Retry-After',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'X-Request-Id',
  'ETag',
  'Idempotent-Replayed',
];

const PUBLIC = Symbol('publicRead');
type Marked = Request & { [PUBLIC]?: boolean };

/**
 * Marks whether a URL is a public read: the GET route (HEAD too) that answers it, tried in the
 * app's own order (`/fundraisers/mine` before `/fundraisers/:id`), has auth none or optional.
 */
function publicReadRouter(modules: RouteModule[]): express.Router {
  const router = express.Router();
  const mark =
    (isPublic: boolean): RequestHandler =>
    (req, _res, next) => {
      (req as Marked)[PUBLIC] = isPublic;
      next('router');
    };
  for (const { mod, route, path } of orderRoutes(modules)) {
    if (route.method !== 'get') continue;
    // Matched for any method: a preflight (OPTIONS) asks about the GET at the same address.
    router.all((mod.root ? '' : '/api/v1') + path, mark(route.auth === 'none' || route.auth === 'optional'));
  }
  return router;
}

/**
 * CORS for the origins of CORS_ORIGINS (other than SITE_URL): they may call the public reads,
 * without credentials (no Access-Control-Allow-Credentials), and nothing else. `site` is the
 * SITE_URL handling every other request goes through; a partner's request to anything but a
 * public read gets that answer, which names SITE_URL, so the browser refuses it. Answers null
 * when CORS_ORIGINS is unset, so no request pays for it.
 */
export function partnerCors(config: Config, modules: RouteModule[], site: RequestHandler): RequestHandler | null {
  const allowed = new Set((config.CORS_ORIGINS ?? []).filter((o) => o !== new URL(config.SITE_URL).origin));
  if (!allowed.size) return null;
  const router = publicReadRouter(modules);
  const isPublicRead = (req: Request, res: express.Response) =>
    new Promise<boolean>((resolve) => {
      router(req, res, () => {
        const hit = (req as Marked)[PUBLIC] === true;
        delete (req as Marked)[PUBLIC];
        resolve(hit);
      });
    });
  const exposed = EXPOSED_HEADERS.join(', ');
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return site(req, res, next);
    const preflight = req.method === 'OPTIONS';
    const asked = preflight ? String(req.headers['access-control-request-method'] ?? '').toUpperCase() : req.method;
    if (asked !== 'GET' && asked !== 'HEAD') return site(req, res, next);
    isPublicRead(req, res).then(
      (hit) => {
        if (!hit) return site(req, res, next);
        res.vary('Origin');
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.removeHeader('Access-Control-Allow-Credentials');
        if (!preflight) {
          res.setHeader('Access-Control-Expose-Headers', exposed);
          return next();
        }
        res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD');
        // Any header but a credential: a partner's browser code reads as a guest.
        const headers = String(req.headers['access-control-request-headers'] ?? '')
          .split(',')
          .map((h) => h.trim())
          .filter((h) => h && !/^(authorization|cookie)$/i.test(h));
        if (headers.length) res.setHeader('Access-Control-Allow-Headers', headers.join(', '));
        res.vary('Access-Control-Request-Headers');
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).setHeader('Content-Length', '0');
        res.end();
      },
      (err: unknown) => next(err),
    );
  };
}
