import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import { createGifProvider, GifProviderError, type Gif, type GifPage } from '../../integrations/gifs';

/** Provider answers are kept this long (the spec's "cached briefly"; trending barely moves in a minute). */
export const GIF_CACHE_S = 60;

async function cached(ctx: AppContext, key: string, load: () => Promise<Gif[]>): Promise<Gif[]> {
  try {
    return await ctx.cache.wrap(key, GIF_CACHE_S, load);
  } catch (err) {
    if (!(err instanceof GifProviderError)) throw err;
    ctx.log.warn({ err: err.message }, 'GIF provider failed');
    throw new ApiError(502, 'GIF provider unavailable', 'The GIF library did not answer; please try again');
  }
}

/** Trending GIFs; an empty list when no provider is configured. */
export async function trending(ctx: AppContext, page: GifPage): Promise<Gif[]> {
  const provider = createGifProvider(ctx.config);
  if (!provider) return [];
  return cached(ctx, `gifs:${provider.name}:trending:${page.lang}:${page.limit}:${page.offset}`, () => provider.trending(page));
}

/** GIFs matching a normalized term; an empty term, or no provider, is an empty list. */
export async function search(ctx: AppContext, term: string, page: GifPage): Promise<Gif[]> {
  const provider = createGifProvider(ctx.config);
  if (!provider || !term) return [];
  const key = `gifs:${provider.name}:search:${page.lang}:${page.limit}:${page.offset}:${term.toLowerCase()}`;
  return cached(ctx, key, () => provider.search(term, page));
}
