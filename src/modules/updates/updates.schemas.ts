import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { LOCALES } from '../../integrations/translate';

export const TITLE_MAX = 200;
export const BODY_MAX = 20_000;

export const projectParams = z.object({ fundraiserId: uuid });
export const updateParams = z.object({ fundraiserId: uuid, updateId: uuid });
export const translationParams = updateParams.extend({ lang: z.enum(LOCALES) });
export const langQuery = z.object({ lang: z.enum(LOCALES).optional().describe('overlay title and body with this locale\'s translation where one exists') });

const title = z.string().max(TITLE_MAX).nullable().optional().describe(`at most ${TITLE_MAX} characters; null or blank means no title`);
const body = z.string().max(BODY_MAX).describe(`plain text (markup removed), 1 to ${BODY_MAX} characters`);

export const createUpdateBody = z.object({ title, body });
export const editUpdateBody = z
  .object({ title, body: body.optional() })
  .refine((b) => b.title !== undefined || b.body !== undefined, { message: 'at least one of title and body is required' });

export const updateItem = z.object({
  id: uuid,
  fundraiser_id: uuid,
  type: z.literal('update'),
  title: z.string().nullable(),
  body: z.string(),
  language: z.enum(LOCALES).describe('the language the update was written in (detected)'),
  like_count: z.number().int(),
  liked_by_me: z.boolean().describe('always false for guests'),
  created_at: z.string(),
  edited_at: z.string().nullable(),
}).meta({ id: 'ProjectUpdate' });

export const withdrawalItem = z.object({
  id: uuid,
  fundraiser_id: uuid,
  type: z.literal('withdrawal'),
  payout_id: uuid,
  amount_cents: z.number().int(),
  currency: z.string(),
  status: z.string(),
  arrival_date: z.string().nullable(),
  created_at: z.string(),
});

export const feed = z.array(z.union([updateItem, withdrawalItem])).describe('newest first');
export const likeAnswer = z.object({ like_count: z.number().int(), liked: z.boolean() });

export const translationRow = z.object({
  lang: z.enum(LOCALES),
  title: z.string().nullable(),
  body: z.string(),
  source: z.enum(['human', 'machine']),
  outdated: z.boolean().describe('a hand-made translation written before the update\'s words last changed'),
  updated_at: z.string(),
}).meta({ id: 'UpdateTranslation' });
export const tabList = z.object({
  data: z.array(
    z.object({
      update_id: uuid,
      title: z.string().nullable(),
      body: z.string(),
      language: z.enum(LOCALES),
      created_at: z.string(),
      translations: z.array(translationRow),
    }),
  ),
});
export const tabOne = z.object({ data: z.object({ update_id: uuid, language: z.enum(LOCALES), translations: z.array(translationRow) }) });
export const translationEnvelope = z.object({ data: translationRow });
export const saveTranslationBody = z.object({
  title: z.string().max(TITLE_MAX).nullable().optional().describe('required when the update has a title'),
  body: z.string().min(1).max(BODY_MAX),
});
export const regenerateQuery = z.object({
  force: z
    .string()
    .optional()
    .transform((v) => v === '1' || v === 'true')
    .describe('`1` or `true` replaces a hand-edited translation'),
});
