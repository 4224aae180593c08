import { hash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * HTTP caching of JSON reads: one place that picks Cache-Control, computes a strong ETag over
 * the exact bytes sent, and answers a matching If-None-Match with 304.
 *
 * - `public`: the same body for every caller (guest reads of public campaigns, the list). Shared
 *   caches may keep it for `maxAge` seconds: the spec lets campaign cards and counts be 30 s stale.
 * - `private`: a caller-specific view (owner, signed-in caller): never stored by shared caches,
 *   and `no-store` so a browser does not keep owner-only fields either. It still gets an ETag, so
 *   a client can revalidate cheaply.
 */
export type CachePolicy = { scope: 'public'; maxAge: number; vary?: string[] } | { scope: 'private' };

/** The Cache-Control a read of public data gets: 30 s, as stale as the spec allows. */
export const PUBLIC_READ_MAX_AGE = 30;

const varyMemo = new Map<string, string>();

/**
 * `res.vary(field)` with the merge memoised: the same few (current Vary, field) pairs recur on
 * every request, and the vary package parses both lists each time (a measurable share of a
 * read-cache hit). The header ends up byte for byte what res.vary writes.
 */
export function addVary(res: Response, field: string): void {
  const cur = res.getHeader('Vary');
  if (cur !== undefined && typeof cur !== 'string') return void res.vary(field);
  const memoKey = `${cur ?? ''}\n${field}`;
  const merged = varyMemo.get(memoKey);
  if (merged !== undefined) {
    if (merged !== '') res.setHeader('Vary', merged);
    return;
  }
  res.vary(field);
  const after = res.getHeader('Vary');
  // Bounded: the pairs come from the route tables and CORS, not from requests.
  if (varyMemo.size < 256) varyMemo.set(memoKey, typeof after === 'string' ? after : '');
}

export function etagOf(body: Buffer | string): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/** If-None-Match matches when it lists the tag (weak or strong: GET uses the weak comparison) or is `*`. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === bare;
  });
}

/** The body may differ by credential (owner fields) or negotiated language: caches key on them. */
const CREDENTIAL_VARY = 'Authorization, Cookie';

/** An answer ready to send: the exact bytes, their ETag and the caching headers of its policy. */
export interface PreparedAnswer {
  body: Buffer;
  etag: string;
  /** null: no Cache-Control header (the answer keeps the framework's defaults). */
  cacheControl: string | null;
  /** Added to Vary (res.vary appends only the fields not listed yet: CORS has set Origin). */
  vary: string | null;
  status: number;
}

/** Serialises `body` once and works out the headers of `policy`; the read cache stores the result. */
export function prepareAnswer(body: unknown, policy: CachePolicy | null, status = 200): PreparedAnswer {
  const json = Buffer.from(JSON.stringify(body));
  if (!policy) return { body: json, etag: etagOf(json), cacheControl: null, vary: null, status };
  if (policy.scope === 'private') return { body: json, etag: etagOf(json), cacheControl: 'private, no-store', vary: null, status };
  return {
    body: json,
    etag: etagOf(json),
    cacheControl: `public, max-age=${policy.maxAge}`,
    vary: policy.vary?.length ? `${CREDENTIAL_VARY}, ${policy.vary.join(', ')}` : CREDENTIAL_VARY,
    status,
  };
}

/**
 * Sends a prepared answer to a GET (or HEAD), or 304 with no body when the client already holds
 * it. The bytes are written as they are (what res.send would do with them, minus its second
 * freshness check and header lookups).
 */
export function sendPrepared(req: Request, res: Response, a: PreparedAnswer): void {
  res.setHeader('ETag', a.etag);
  if (a.cacheControl) res.setHeader('Cache-Control', a.cacheControl);
  if (a.vary) addVary(res, a.vary);
  const header = req.headers['if-none-match'];
  if (a.status === 200 && (req.method === 'GET' || req.method === 'HEAD') && ifNoneMatchHits(header, a.etag)) {
    res.status(304).end();
    return;
  }
  res.statusCode = a.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', a.body.length);
  if (req.method === 'HEAD') res.end();
  else res.end(a.body);
}

/**
 * Sends `body` as the JSON answer of a GET with the policy's headers, or 304 with no body when
 * the client already holds it. Returns nothing: the route pipeline sees the response as sent.
 * The body is serialised once; those bytes are hashed for the ETag and written as they are.
 */
export function sendCacheable(req: Request, res: Response, body: unknown, policy: CachePolicy, status = 200): void {
  sendPrepared(req, res, prepareAnswer(body, policy, status));
}
