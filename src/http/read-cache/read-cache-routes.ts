import type { Request, Response } from 'express';

/**
 * Which requests may use the read cache: those of routes that declare `readCache: true` in their
 * route table (define-routes.ts marks the response). The declaration is what the table-coverage
 * test (test/api/read-cache-sources.test.ts) enumerates, so a route caching without it would
 * escape that test: the cache refuses such a request instead.
 */
const MARK = Symbol('readCached');

/**
 * How a route's guest reads teach the fast path (src/http/read-cache/fast-hit.ts) which cache key a URL
 * reads: the read cache calls `learn` with the key the route's handler worked out.
 */
export interface FastTicket {
  learn(req: Request, key: string): void;
}

export function markReadCached(res: Response, ticket: FastTicket | null = null): void {
  (res.locals as Record<symbol, unknown>)[MARK] = ticket ?? true;
}

/** Throws for a route that does not declare readCache; answers its fast-path ticket, if it has one. */
export function assertReadCached(res: Response): FastTicket | null {
  const mark = (res.locals as Record<symbol, unknown>)[MARK];
  if (mark === undefined) {
    throw new Error('read cache used by a route that does not declare readCache: true in its route table');
  }
  return mark === true ? null : (mark as FastTicket);
}
