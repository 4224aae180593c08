/** One GIF as the API answers it. */
export interface Gif {
  id: string;
  url: string;
  preview_url: string;
  width: number;
  height: number;
  title: string;
}

export type GifLang = 'en' | 'ru' | 'uk' | 'es';

export interface GifPage {
  limit: number;
  offset: number;
  lang: GifLang;
}

/** A GIF library (Tenor or GIPHY): trending and search, filtered for a general audience. */
export interface GifProvider {
  readonly name: 'tenor' | 'giphy';
  trending(page: GifPage): Promise<Gif[]>;
  search(term: string, page: GifPage): Promise<Gif[]>;
}

/** The provider could not be reached or answered something unusable. */
export class GifProviderError extends Error {}

const TIMEOUT_MS = 5_000;

/** GET a provider URL as JSON, with a short timeout: a GIF picker must not hang a request. */
export async function getJson(url: URL): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new GifProviderError(`GIF provider request failed: ${(err as Error).message}`);
  }
  if (!res.ok) throw new GifProviderError(`GIF provider answered ${res.status}`);
  const body = (await res.json().catch(() => null)) as unknown;
  if (!body || typeof body !== 'object') throw new GifProviderError('GIF provider answered no JSON object');
  return body;
}

export const httpUrl = (v: unknown): v is string => typeof v === 'string' && /^https?:\/\//.test(v);
