import { getJson, GifProviderError, httpUrl, type Gif, type GifPage, type GifProvider } from './port';

interface GiphyImage {
  url?: unknown;
  width?: unknown;
  height?: unknown;
}
interface GiphyItem {
  id?: unknown;
  title?: unknown;
  images?: Record<string, GiphyImage | undefined>;
}

/**
 * GIPHY API v1 (`/v1/gifs/trending`, `/v1/gifs/search`): `api_key`, `limit`, `offset`, `lang`
 * (en, ru, uk, es: GIPHY takes the two-letter codes), `rating=g`.
 */
export class GiphyProvider implements GifProvider {
  readonly name = 'giphy' as const;

  constructor(private readonly opts: { baseUrl?: string; apiKey?: string }) {}

  trending(page: GifPage): Promise<Gif[]> {
    return this.call('trending', page, {});
  }

  search(term: string, page: GifPage): Promise<Gif[]> {
    return this.call('search', page, { q: term });
  }

  private async call(path: string, page: GifPage, extra: Record<string, string>): Promise<Gif[]> {
    const url = new URL(`${(this.opts.baseUrl ?? 'https://api.giphy.com').replace(/\/+$/, '')}/v1/gifs/${path}`);
    const params = { ...extra, api_key: this.opts.apiKey ?? '', limit: String(page.limit), offset: String(page.offset), lang: page.lang, rating: 'g' };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const body = (await getJson(url)) as { data?: unknown };
    if (!Array.isArray(body.data)) throw new GifProviderError('GIPHY answered without data');
    return (body.data as GiphyItem[]).flatMap((g) => {
      const full = g.images?.original;
      const small = g.images?.fixed_width_small ?? g.images?.fixed_width ?? full;
      if (typeof g.id !== 'string' || !httpUrl(full?.url) || !httpUrl(small?.url)) return [];
      return [{ id: g.id, url: full.url, preview_url: small.url, width: Number(full.width) || 0, height: Number(full.height) || 0, title: typeof g.title === 'string' ? g.title : '' }];
    });
  }
}
