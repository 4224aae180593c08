import { z } from 'zod';
import { firstValue, pageLimit, pageOffset } from '../../http/schema-helpers';
import type { GifLang } from '../../integrations/gifs';

export const TERM_MAX = 50;
const LANGS: readonly GifLang[] = ['en', 'ru', 'uk', 'es'];
/** GIPHY pages no deeper than 4,999; Tenor's position behaves alike in practice. */
export const GIF_OFFSET_MAX = 4999;

/** The spec's search term: whitespace runs become one space, trimmed, cut to 50 characters. */
export function normalizeTerm(raw: string): string {
  return Array.from(raw.replace(/\s+/g, ' ').trim()).slice(0, TERM_MAX).join('').trim();
}

const lang = z
  .preprocess((v) => {
    const s = firstValue(v);
    return typeof s === 'string' && (LANGS as string[]).includes(s.toLowerCase()) ? s.toLowerCase() : 'en';
  }, z.enum(['en', 'ru', 'uk', 'es']))
  .describe('en, ru, uk or es; anything else (or none) is en');

export const trendingQuery = z.object({ limit: pageLimit({ def: 20, max: 50 }), offset: pageOffset(GIF_OFFSET_MAX), lang });

export const searchQuery = trendingQuery.extend({
  q: z
    .preprocess((v) => firstValue(v) ?? '', z.string().max(2048))
    .transform(normalizeTerm)
    .describe(`the search term; whitespace collapsed, cut to ${TERM_MAX} characters; empty answers an empty list`),
});

export const gif = z.object({
  id: z.string(),
  url: z.string(),
  preview_url: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  title: z.string(),
}).meta({ id: 'Gif' });
export const gifList = z.object({ data: z.array(gif) });
