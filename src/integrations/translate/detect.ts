import { detect } from 'tinyld';
import { LOCALES, type Locale } from './port';

/**
 * The locale a text is written in, detected offline (tinyld's n-gram model, no network) among
 * the four the service supports; `fallback` when the text is too short or ambiguous to tell.
 */
export function detectLocale(text: string, fallback: Locale): Locale {
  const found = detect(text, { only: [...LOCALES] });
  return (LOCALES as readonly string[]).includes(found) ? (found as Locale) : fallback;
}
