import type { Cache } from './cache';
import type { Logger } from './logger';

/**
 * The version under which discovery caches the fundraiser list's totals (30 s). Campaign writers
 * (fundraisers, admin review) bump it so a create, publish, status or visibility change or delete
 * makes every cached total stale at once, on every instance sharing the cache, without listing
 * keys. It sits in infra, not in discovery, so writers need not import the module that reads
 * them (discovery reads fundraisers); an outbox subscriber would run later in the worker, and the
 * list must show such a change at once.
 */
const VERSION_KEY = 'discovery:total:version';
// Outlives any total by far; when it lapses the keys of the fallback version lapsed long ago.
const VERSION_TTL_SECONDS = 86_400;

export async function listTotalsVersion(ctx: { cache: Cache }): Promise<string> {
  return (await ctx.cache.get<string>(VERSION_KEY)) ?? '0';
}

/** Called after a write that changes which campaigns the public list shows. Never fails the write. */
export async function invalidateListTotals(ctx: { cache: Cache; log: Logger }): Promise<void> {
  try {
    await ctx.cache.set(VERSION_KEY, `${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}`, VERSION_TTL_SECONDS);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'could not invalidate the fundraiser list totals; they lapse within 30 s');
  }
}
