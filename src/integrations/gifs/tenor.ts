import { getJson, GifProviderError, httpUrl, type Gif, type GifLang, type GifPage, type GifProvider } from './port';

const LOCALE: Record<GifLang, string> = { en: 'en_US', ru: 'ru_RU', uk: 'uk_UA', es: 'es_ES' };

interface TenorMedia {
  url?: unknown;
  dims?: unknown;
}
interface TenorResult {
  id?: unknown;
  title?: unknown;
  content_description?: unknown;
  media_formats?: Record<string, TenorMedia | undefined>;
}

/**
 * Tenor API v2 (`/v2/featured`, `/v2/search`): `key`, `limit`, `pos` (the offset, which Tenor
 * takes as its position token), `locale` (en_US, ru_RU, uk_UA, es_ES), `contentfilter=high`,
 * and only the gif and tinygif renditions.
 */
export class TenorProvider implements GifProvider {
  readonly name = 'tenor' as const;

  constructor(private readonly opts: { baseUrl?: string; apiKey?: string }) {}

  trending(page: GifPage): Promise<Gif[]> {
    return this.call('featured', page, {});
  }

  search(term: string, page: GifPage): Promise<Gif[]> {
    return this.call('search', page, { q: term });
  }

  private async call(path: string, page: GifPage, extra: Record<string, string>): Promise<Gif[]> {
    const url = new URL(`${(this.opts.baseUrl ?? 'https://tenor.googleapis.com').replace(/\/+$/, '')}/v2/${path}`);
    const params = { ...extra, key: this.opts.apiKey ?? '', limit: String(page.limit), pos: String(page.offset), locale: LOCALE[page.lang], contentfilter: 'high', media_filter: 'gif,tinygif' };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const body = (await getJson(url)) as { results?: unknown };
    if (!Array.isArray(body.results)) throw new GifProviderError('Tenor answered without results');
    return (body.results as TenorResult[]).flatMap((r) => {
      const full = r.media_formats?.gif;
      const small = r.media_formats?.tinygif ?? full;
      const dims = Array.isArray(full?.dims) ? (full.dims as unknown[]) : [];
      if (typeof r.id !== 'string' || !httpUrl(full?.url) || !httpUrl(small?.url)) return [];
      const title = typeof r.title === 'string' && r.title ? r.title : typeof r.content_description === 'string' ? r.content_description : '';
      return [{ id: r.id, url: full.url, preview_url: small.url, width: Number(dims[0]) || 0, height: Number(dims[1]) || 0, title }];
    });
  }
}
