import type { Config } from '../../config';
import { GiphyProvider } from './giphy';
import type { GifProvider } from './port';
import { TenorProvider } from './tenor';

export { GifProviderError, type Gif, type GifLang, type GifPage, type GifProvider } from './port';
export { GiphyProvider } from './giphy';
export { TenorProvider } from './tenor';

/** The GIF library for this process, or null when GIF_PROVIDER is unset (GIF reads answer empty lists). */
export function createGifProvider(config: Pick<Config, 'GIF_PROVIDER' | 'GIF_API_KEY' | 'GIF_API_URL'>): GifProvider | null {
  const opts = { baseUrl: config.GIF_API_URL, apiKey: config.GIF_API_KEY };
  if (config.GIF_PROVIDER === 'tenor') return new TenorProvider(opts);
  if (config.GIF_PROVIDER === 'giphy') return new GiphyProvider(opts);
  return null;
}
