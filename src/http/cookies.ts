import type { CookieOptions, Request, Response } from 'express';
import type { Config } from '../config';
import { REFRESH_TTL_SECONDS, TOKEN_TTL_SECONDS, type TokenSet } from '../integrations/idp/port';

export const SESSION_COOKIES = ['access_token', 'id_token', 'refresh_token'] as const;

/** Whether the request carries a browser session (an ID or access token cookie). */
export function hasSessionCookie(req: Request): boolean {
  const c = (req.cookies ?? {}) as Record<string, unknown>;
  return Boolean(c.id_token || c.access_token);
}

/** Every cookie the service sets: httpOnly, SameSite=Lax, Path=/, Secure in production (spec "Authentication" 4). */
export function cookieOptions(config: Config): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: config.NODE_ENV === 'production' };
}

/** access_token and id_token for 1 hour; refresh_token (when given) for 90 days. */
export function setSessionCookies(res: Response, config: Config, tokens: TokenSet): void {
  const b = cookieOptions(config);
  res.cookie('access_token', tokens.accessToken, { ...b, maxAge: TOKEN_TTL_SECONDS * 1000 });
  res.cookie('id_token', tokens.idToken, { ...b, maxAge: TOKEN_TTL_SECONDS * 1000 });
  if (tokens.refreshToken) res.cookie('refresh_token', tokens.refreshToken, { ...b, maxAge: REFRESH_TTL_SECONDS * 1000 });
}

export function clearSessionCookies(res: Response, config: Config): void {
  const b = cookieOptions(config);
  for (const name of SESSION_COOKIES) res.clearCookie(name, b);
}
