import { z } from 'zod';
import { ApiError } from './errors';

/**
 * Bounded building blocks for request schemas. Every number and date a client sends is held to
 * what its column (int4, bigint, date) and JavaScript can represent, so an out-of-range value
 * answers 400 from validation instead of reaching Postgres as a data exception (500).
 */

export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;
/**
 * Deepest offset a paged list serves (docs/integrators/pagination.md): a deep OFFSET
 * makes Postgres read and discard every row before it, so beyond this the request is refused.
 */
export const OFFSET_MAX = 10_000;

/** 400 `{ error: 'Offset too large', code: 'OFFSET_TOO_LARGE', max_offset }` for an offset past OFFSET_MAX. */
export const offsetTooLarge = () =>
  new ApiError(400, 'Offset too large', `offset may be at most ${OFFSET_MAX}; narrow the query instead of paging this deep`, {
    code: 'OFFSET_TOO_LARGE',
    max_offset: OFFSET_MAX,
  });

/** An integer that fits a Postgres `integer` column (narrowed further with min/max). */
export const int32 = (min = INT32_MIN, max = INT32_MAX) => z.number().int().min(min).max(max);

/** An integer that fits a Postgres `bigint` and stays exact in JavaScript. */
export const safeInt = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);

/** The first value of a query parameter (a repeated parameter arrives as an array). */
export function firstValue(v: unknown): unknown {
  return Array.isArray(v) ? v[0] : v;
}

/** A query value as a number; NaN when missing, empty or not numeric. */
function queryNumber(v: unknown): number {
  const s = firstValue(v);
  if (typeof s === 'number') return s;
  if (typeof s !== 'string' || s.trim() === '') return NaN;
  return Number(s.trim());
}

/**
 * A paging `limit` with the list reads' clamping: 1..max; larger is max; missing, zero,
 * negative or non-numeric is the default. Documented as an integer with its bounds.
 */
export function pageLimit(opts: { def?: number; max?: number } = {}) {
  const def = opts.def ?? 20;
  const max = opts.max ?? 100;
  return z
    .preprocess((v) => {
      // null never comes from a query string; passing it through keeps the documented type non-nullable
      // (the OpenAPI generator probes the schema with null).
      if (v === null) return v;
      const n = Math.trunc(queryNumber(v));
      return Number.isFinite(n) && n > 0 ? Math.min(n, max) : def;
    }, z.number().int().min(1).max(max))
    .default(def)
    .describe(`1 to ${max}, default ${def}; larger is ${max}; missing, zero, negative or non-numeric is ${def}`);
}

/**
 * A paging `offset`: 0 or more; negative or non-numeric is 0; beyond OFFSET_MAX the request is
 * refused (400 OFFSET_TOO_LARGE, thrown from here so it keeps its own body); a list with a lower
 * bound of its own (`max`, e.g. an upstream API's) clamps to it.
 */
export function pageOffset(max = OFFSET_MAX) {
  const cap = Math.min(max, OFFSET_MAX);
  return z
    .preprocess((v) => {
      if (v === null) return v;
      const n = queryNumber(v);
      if (!Number.isFinite(n) || n <= 0) return 0;
      if (n > OFFSET_MAX) throw offsetTooLarge();
      return Math.min(Math.trunc(n), cap);
    }, z.number().int().min(0).max(cap))
    .default(0)
    .describe(
      cap < OFFSET_MAX
        ? `0 or more, default 0; negative or non-numeric is 0; up to ${OFFSET_MAX} accepted, served as at most ${cap}; beyond ${OFFSET_MAX} 400 OFFSET_TOO_LARGE`
        : `0 to ${OFFSET_MAX}, default 0; negative or non-numeric is 0; beyond ${OFFSET_MAX} 400 OFFSET_TOO_LARGE`,
    );
}

const yearOf = (s: string) => Number(s.slice(0, 4));

/**
 * An ISO 8601 date (YYYY-MM-DD), or with `dateTime` also a date-time with an offset, whose year
 * lies in minYear..maxYear (default 1900..9999): Postgres has no year 0 and JavaScript dates
 * end in 275760, so the bounds keep both sides exact.
 */
export function isoDateInRange(opts: { minYear?: number; maxYear?: number; dateTime?: boolean } = {}) {
  const minYear = opts.minYear ?? 1900;
  const maxYear = opts.maxYear ?? 9999;
  const base = opts.dateTime ? z.union([z.iso.date(), z.iso.datetime({ offset: true })]) : z.iso.date();
  return base.refine((s) => yearOf(s) >= minYear && yearOf(s) <= maxYear, {
    message: `must be a date in the years ${minYear} to ${maxYear}`,
  });
}
