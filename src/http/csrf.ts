import type { Request, RequestHandler } from 'express';
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

/** Answered even cross-site (spec: logout always answers 200); the handler then only clears cookies. */
const ALWAYS_ANSWERED = new Set(['/api/v1/idp/logout']);

/**
 * Operations that set session cookies from credentials in the body. A cross-site form could
 * sign the victim's browser into the attacker's account (login CSRF), so they refuse
 * cross-site callers whether or not a session cookie is present. Native apps send no Origin.
 */
const SESSION_ISSUING = new Set(['/api/v1/idp/signin', '/api/v1/idp/signup', '/api/v1/idp/refresh', '/api/v1/idp/challenge']);

/** Whether an unsafe request comes from outside the site (SITE_URL) and the service (PUBLIC_URL). */
export function isCrossSite(req: Request, config: Config): boolean {
  const allowed = new Set([originOf(config.SITE_URL), originOf(config.PUBLIC_URL)].filter(Boolean));
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== '') return origin === 'null' || !allowed.has(origin);
  return req.headers['sec-fetch-site'] === 'cross-site';
}

/**
 * Cross-site request protection for cookie sessions: an unsafe request that carries a session
 * cookie must come from the site (SITE_URL) or the service itself (PUBLIC_URL). Requests
 * without session cookies (bearer tokens, API keys, webhooks) are not affected.
 */
export function csrfProtection(config: Config): RequestHandler {
  return (req, _res, next) => {
    if (!UNSAFE.has(req.method)) return next();
    const path = req.path.toLowerCase().replace(/\/+$/, '');
    if (SESSION_ISSUING.has(path) && isCrossSite(req, config)) {
      return next(new ApiError(403, 'Forbidden', 'Cross-site sign-in requests are refused', { code: 'CSRF_ORIGIN_MISMATCH' }));
    }
    // The sandbox processor's hosted forms use no session: a browser that also holds one (the
    // page opened on another host name than PUBLIC_URL) must still be able to pay.
    if (path.startsWith('/sandbox/')) return next();
    const cookies = (req.cookies ?? {}) as Record<string, unknown>;
    if (!SESSION_COOKIES.some((n) => cookies[n])) return next();
    if (ALWAYS_ANSWERED.has(path)) return next();
    if (isCrossSite(req, config)) {
      return next(
        new ApiError(403, 'Forbidden', 'Cross-site requests with session cookies are refused', { code: 'CSRF_ORIGIN_MISMATCH' }),
      );
    }
    next();
  };
}
