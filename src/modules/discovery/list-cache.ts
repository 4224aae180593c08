import type { AppContext } from '../../context';

/**
 * The fundraiser list's cached totals (30 s) live under a version that campaign writes bump:
 * a create, publish, status or visibility change or delete makes every cached total stale at
 * once, on every instance sharing the cache, without listing keys.
 */
const VERSION_KEY = 'discovery:total:version';
// Outlives any total by far; when it lapses the keys of the fallback version lapsed long ago.
const VERSION_TTL_SECONDS = 86_400;

export async function listTotalKey(ctx: Pick<AppContext, 'cache'>, parts: string): Promise<string> {
  const version = (await ctx.cache.get<string>(VERSION_KEY)) ?? '0';
  return `discovery:total:${version}:${parts}`;
}

/** Called after a write that changes which campaigns the public list shows. Never fails the write. */
export async function invalidateListTotals(ctx: Pick<AppContext, 'cache' | 'log'>): Promise<void> {
  try {
    await ctx.cache.set(VERSION_KEY, `${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}`, VERSION_TTL_SECONDS);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'could not invalidate the fundraiser list totals; they lapse within 30 s');
  }
}

/** A total is never below what the page itself proves exists (a stale count must not say otherwise). */
export const atLeastPage = (total: number, offset: number, rows: number): number => Math.max(total, rows > 0 ? offset + rows : 0);
