import type { RequestHandler } from 'express';
import type { Config } from '../config';
import { ApiError } from './errors';
import { SESSION_COOKIES } from './cookies';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const originOf = (u: string) => {
  try {
    return new URL(u).origin;
  } catch {
    return null;
  }
};

/**
 * Cross-site request protection for cookie sessions: an unsafe request that carries a session
 * cookie must come from the site (SITE_URL) or the service itself (PUBLIC_URL). Requests
 * without session cookies (bearer tokens, API keys, webhooks) are not affected.
 */
export function csrfProtection(config: Config): RequestHandler {
  const allowed = new Set([originOf(config.SITE_URL), originOf(config.PUBLIC_URL)].filter(Boolean));
  return (req, _res, next) => {
    if (!UNSAFE.has(req.method)) return next();
    const cookies = (req.cookies ?? {}) as Record<string, unknown>;
    if (!SESSION_COOKIES.some((n) => cookies[n])) return next();
    const origin = req.headers.origin;
    let crossSite: boolean;
    if (typeof origin === 'string' && origin !== '') crossSite = origin === 'null' || !allowed.has(origin);
    else crossSite = req.headers['sec-fetch-site'] === 'cross-site';
    if (crossSite) {
      return next(
        new ApiError(403, 'Forbidden', 'Cross-site requests with session cookies are refused', { code: 'CSRF_ORIGIN_MISMATCH' }),
      );
    }
    next();
  };
}
