import type { Request } from 'express';
import { ApiError } from '../../http/errors';
import { requestLocale } from '../../integrations/mail';
import { isLang, type Lang } from '../fundraisers';

/**
 * GET /fundraisers query rules. The list never 500s on odd input: repeated parameters use the
 * first value (except `near`, where repetition is an error by spec), numbers are clamped (limit and
 * offset by pageLimit/pageOffset in the query schema), and unknown parameters are ignored.
 */

export const STATUS_VALUES = ['active', 'closed', 'ended', 'all'] as const;
export type StatusFilter = 'active' | 'closed' | 'all';

export const LIMIT_DEFAULT = 20;
export const LIMIT_MAX = 100;
export const RADIUS_DEFAULT = 20;
export const RADIUS_MIN = 1;
export const RADIUS_MAX = 100;
const Q_MAX = 200;

type Raw = string | string[] | undefined;

// NUL cannot be stored or compared in Postgres text; a query value carrying one loses it.
const stripNul = (s: string) => s.replace(/\0/g, '');

export function first(v: unknown): string | undefined {
  if (Array.isArray(v)) return typeof v[0] === 'string' ? stripNul(v[0]) : undefined;
  return typeof v === 'string' ? stripNul(v) : undefined;
}

/**
 * `lang` query, then the `lang` cookie, then Accept-Language; null when none names a locale. Only
 * the query step is the list's own (a repeated `lang` counts by its first value); the cookie and
 * Accept-Language steps are the site-wide ones of requestLocale.
 */
export function resolveLang(req: Request, queryLang: unknown): Lang | null {
  const q = first(queryLang)?.trim().toLowerCase();
  return isLang(q) ? q : requestLocale(req);
}

export function parseStatus(v: Raw): StatusFilter {
  const s = first(v);
  if (s === undefined || s === '') return 'all';
  if (s === 'active' || s === 'all') return s;
  if (s === 'closed' || s === 'ended') return 'closed';
  throw new ApiError(400, 'Invalid status', `status must be one of ${STATUS_VALUES.join(', ')}`, {
    allowed: [...STATUS_VALUES],
  });
}

/** true | false (also 1 | 0, any case); anything else means "both". */
export function parseProjects(v: Raw): boolean | null {
  const s = first(v)?.trim().toLowerCase();
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0') return false;
  return null;
}

export function parseQ(v: Raw): string | null {
  const s = first(v)?.replace(/\s+/g, ' ').trim();
  return s ? s.slice(0, Q_MAX) : null;
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** `<lat>,<lng>` in decimal degrees; invalid, empty or repeated answers 400 invalid_near. */
export function parseNear(v: unknown): { lat: number; lng: number } | null {
  if (v === undefined) return null;
  const bad = (why: string) =>
    new ApiError(400, 'invalid_near', `near must be "<lat>,<lng>" with latitude -90..90 and longitude -180..180 (${why})`);
  if (typeof v !== 'string') throw bad('given more than once');
  const parts = v.split(',').map((p) => p.trim());
  if (parts.length !== 2 || !DECIMAL.test(parts[0]!) || !DECIMAL.test(parts[1]!)) throw bad('not two decimal numbers');
  const lat = Number(parts[0]);
  const lng = Number(parts[1]);
  if (lat < -90 || lat > 90 || lng < -180 || lng > 180) throw bad('out of range');
  return { lat, lng };
}

/** 1..100, default 20; larger is 100, smaller is 1, non-numeric is 20. */
export function parseRadius(v: Raw): number {
  const s = first(v)?.trim();
  const n = s ? Number(s) : NaN;
  if (!Number.isFinite(n)) return RADIUS_DEFAULT;
  return Math.min(RADIUS_MAX, Math.max(RADIUS_MIN, n));
}
