import { z } from 'zod';
import { LOCALES } from '../../integrations/mail';
import { firstValue, isoDateInRange, pageLimit } from '../../http/schema-helpers';

export const feedQuery = z.object({
  limit: pageLimit({ def: 20, max: 50 }),
  cursor: z
    .preprocess(firstValue, z.string().optional())
    .describe('`next_cursor` of the previous page; a cursor the service did not mint answers 400 `Invalid cursor`'),
  lang: z
    .preprocess((v) => {
      const s = firstValue(v);
      return typeof s === 'string' && (LOCALES as readonly string[]).includes(s.trim().toLowerCase()) ? s.trim().toLowerCase() : undefined;
    }, z.enum(LOCALES).optional())
    .describe('en, ru, uk or es: an update is shown in the stored translation to that language when there is one; other values are ignored'),
});

export const readAllBody = z
  .object({ until: isoDateInRange({ dateTime: true, minYear: 1970, maxYear: 9999 }).optional().describe('only updates posted at or before it are marked') })
  .describe('optional');

const item = z.object({
  id: z.string(),
  fundraiser_id: z.string(),
  type: z.literal('update'),
  title: z.string().nullable(),
  body: z.string(),
  language: z.string(),
  like_count: z.number().int(),
  liked_by_me: z.boolean(),
  created_at: z.string(),
  edited_at: z.string().nullable(),
  is_read: z.boolean(),
  read_at: z.string().nullable().describe('when it was marked read; for an update posted before the relationship began, that moment'),
  author: z.object({ id: z.string(), name: z.string().nullable(), avatar: z.string().nullable() }),
  fundraiser: z.object({ id: z.string(), title: z.string(), slug: z.string(), cover_image: z.string().nullable() }),
});

export const feedResponse = z.object({ data: z.array(item), next_cursor: z.string().nullable(), unread_count: z.number().int() });
export const readResponse = z.object({ success: z.boolean(), updated: z.number().int(), unread_count: z.number().int() });
