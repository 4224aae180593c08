import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { ACHIEVEMENT_KINDS, ACHIEVEMENT_LANGS } from './achievements.labels';
import { CARD_CODE } from './achievements.service';

export const userParams = z.object({ id: uuid });
export const codeParams = z.object({ code: z.string().regex(CARD_CODE, 'must be a card code (16 letters, digits, - or _)') });
export const assetParams = codeParams.extend({
  asset: z.enum(['og.png', 'square.png', 'story.png']).describe('og.png 1200x630, square.png 1080x1080, story.png 1080x1920'),
});

export const langQuery = z.object({
  lang: z.string().max(35).optional().describe('en | ru | uk | es (labels); otherwise the `lang` cookie, then Accept-Language, then en'),
});
export const imageLangQuery = z.object({
  lang: z.enum(ACHIEVEMENT_LANGS).optional().describe("labels' language (en, ru, uk, es); default en"),
});

const at = z.string().describe('ISO 8601 date-time');
const entry = z.object({
  code: z.string().describe("the card's public code (GET /achievements/{code})"),
  kind: z.enum(ACHIEVEMENT_KINDS),
  label: z.string(),
  earned_at: at,
});

export const listAnswer = z.object({ data: z.array(entry) });
export const cardAnswer = z.object({
  data: entry.extend({
    user: z.object({ id: uuid, name: z.string(), avatar: z.string().nullable(), profile_slug: z.string().nullable() }),
    fundraiser: z.object({ id: uuid, title: z.string(), slug: z.string() }).nullable()
      .describe('the campaign it was earned on, while a guest may read it'),
    url: z.string().describe('the card page on the site (what the QR code opens)'),
    images: z.object({ og: z.string(), square: z.string(), story: z.string(), qr: z.string() }),
  }),
});
