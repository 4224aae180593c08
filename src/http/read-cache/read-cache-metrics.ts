import { recordCache } from '../../infra/metrics';
import type { ReadCache, ReadCacheEvent } from './read-cache';

const HIT_EVENTS: ReadonlySet<ReadCacheEvent> = new Set(['hit', 'stale_hit', 'viewer_hit']);

/** The cache with its hits and misses counted in the Prometheus families (`read` and, for Redis, `read-shared`). */
export function countedReadCache(cache: ReadCache): ReadCache {
  cache.onEvent = (event) => {
    if (HIT_EVENTS.has(event)) recordCache('read', true);
    else if (event === 'miss') recordCache('read', false);
    else if (event === 'shared_hit') recordCache('read-shared', true);
  };
  return cache;
}
