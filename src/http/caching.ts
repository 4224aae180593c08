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

/**
 * Sends `body` as the JSON answer of a GET with the policy's headers, or 304 with no body when
 * the client already holds it. Returns nothing: the route pipeline sees the response as sent.
 * The body is serialised once; those bytes are hashed for the ETag and written as they are
 * (what res.send would do with them, minus its second freshness check and header lookups).
 */
export function sendCacheable(req: Request, res: Response, body: unknown, policy: CachePolicy, status = 200): void {
  const json = Buffer.from(JSON.stringify(body));
  const etag = etagOf(json);
  res.setHeader('ETag', etag);
  if (policy.scope === 'public') {
    res.setHeader('Cache-Control', `public, max-age=${policy.maxAge}`);
    // res.vary appends only the fields not listed yet (CORS has set Origin).
    res.vary(policy.vary?.length ? `${CREDENTIAL_VARY}, ${policy.vary.join(', ')}` : CREDENTIAL_VARY);
  } else {
    res.setHeader('Cache-Control', 'private, no-store');
  }
  const header = req.headers['if-none-match'];
  if (status === 200 && (req.method === 'GET' || req.method === 'HEAD') && ifNoneMatchHits(header, etag)) {
    res.status(304).end();
    return;
  }
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', json.length);
  if (req.method === 'HEAD') res.end();
  else res.end(json);
}
