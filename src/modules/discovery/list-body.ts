import type { Response } from 'express';
import type { AppContext } from '../../context';
import { PUBLIC_READ_MAX_AGE, type CachePolicy } from '../../http/caching';
import { toCard } from './card';
import * as reads from './discovery.reads';
import { atLeastPage, listTotalKey } from './list-cache';
import { boundedSearch } from './search-limit';

const TOTAL_TTL_SECONDS = 30;

/** Cards are the same for every caller; the language may come from the cookie or Accept-Language. */
export const LIST_POLICY: CachePolicy = { scope: 'public', maxAge: PUBLIC_READ_MAX_AGE, vary: ['Accept-Language'] };

/** The body of GET /fundraisers for a parsed filter (a page of cards and its total). */
export async function listBody(ctx: AppContext, res: Response, filter: reads.ListFilter) {
  const pagination = { limit: filter.limit, offset: filter.offset };
  // An unknown category matches nothing (not an error: the list ignores what it cannot use).
  if (filter.categoryIds && filter.categoryIds.length === 0) return { data: [], pagination: { ...pagination, total: 0 } };
  // The total of a broad filter (no q, no near) is O(campaigns) to count: served from a
  // 30-second cache (the spec allows card counts up to 30 s stale). Few keys: status x category x projects.
  const broad = !filter.q && !filter.near;
  // Campaign writes bump the keys' version (list-cache.ts), so create, publish and delete show at once.
  const key = broad ? await listTotalKey(ctx, `${filter.status}:${filter.categoryIds?.join('.') ?? '*'}:${String(filter.projects)}`) : '';
  // A cached total lets the page be one query with no count; on a miss the same query counts.
  const knownTotal = broad ? await ctx.cache.get<number>(key) : undefined;
  // Ranked search, the raised ordering and distance filters are the expensive reads: they share
  // search's concurrency gate and statement timeout, so a burst of them cannot starve the rest.
  const expensive = Boolean(filter.q) || filter.sort === 'raised' || Boolean(filter.near);
  const { rows, total } = expensive
    ? await boundedSearch(ctx, res, (trx) => reads.listCards(trx, filter, filter.q ? undefined : { knownTotal }))
    : await reads.listCards(ctx.db, filter, { knownTotal });
  if (broad && knownTotal === undefined) await ctx.cache.set(key, total, TOTAL_TTL_SECONDS);
  return { data: rows.map(toCard), pagination: { ...pagination, total: atLeastPage(total, filter.offset, rows.length) } };
}
