import type { Config } from '../../config';
import { LibreTranslateTranslator } from './libretranslate';
import type { Translator } from './port';

export { LOCALES, isLocale, TranslatorError, type Locale, type Translator } from './port';
export { detectLocale } from './detect';
export { LibreTranslateTranslator } from './libretranslate';

/** The machine translator for this process, or null when TRANSLATE_URL is unset (no machine translations). */
export function createTranslator(config: Pick<Config, 'TRANSLATE_URL' | 'TRANSLATE_API_KEY'>): Translator | null {
  if (!config.TRANSLATE_URL) return null;
  return new LibreTranslateTranslator({ url: config.TRANSLATE_URL, apiKey: config.TRANSLATE_API_KEY });
}
