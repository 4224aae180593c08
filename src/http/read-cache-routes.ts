import type { Response } from 'express';

/**
 * Which requests may use the read cache: those of routes that declare `readCache: true` in their
 * route table (define-routes.ts marks the response). The declaration is what the table-coverage
 * test (test/api/read-cache-sources.test.ts) enumerates, so a route caching without it would
 * escape that test: the cache refuses such a request instead.
 */
const MARK = Symbol('readCached');

export function markReadCached(res: Response): void {
  (res.locals as Record<symbol, unknown>)[MARK] = true;
}

export function assertReadCached(res: Response): void {
  if ((res.locals as Record<symbol, unknown>)[MARK] !== true) {
    throw new Error('read cache used by a route that does not declare readCache: true in its route table');
  }
}
