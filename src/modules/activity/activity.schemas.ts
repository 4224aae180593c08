import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit } from '../../http/schema-helpers';
import { VISITOR_ID } from '../../http/visitor';

export const ACTIVITY_LIMIT_MAX = 50;

export const homeQuery = z.object({
  limit: pageLimit({ def: 20, max: ACTIVITY_LIMIT_MAX }),
  lang: z.union([z.string(), z.array(z.string())]).optional()
    .describe('en | ru | uk | es (campaign titles); otherwise the `lang` cookie, then Accept-Language, then en'),
});

export const presenceParams = z.object({ id: uuid });
export const presenceQuery = z.object({
  v: z.string().regex(VISITOR_ID, 'must be 8 to 64 letters, digits, - or _').optional()
    .describe('The visitor id, for clients without the `visitor_id` cookie'),
});

const campaignRef = z.object({ id: uuid, title: z.string(), slug: z.string() });
const at = z.string().describe('ISO 8601 date-time');

export const activityItem = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('gift'),
    at,
    fundraiser: campaignRef,
    amount_cents: z.number().int(),
    currency: z.string(),
    donor_name: z.string().nullable().describe('null for anonymous gifts and donors with a private profile'),
  }),
  z.object({ kind: z.literal('referral_click'), at, fundraiser: campaignRef }),
  z.object({ kind: z.literal('referral_view'), at, fundraiser: campaignRef, count: z.number().int().describe('visits through shared links in the last hour') }),
  z.object({ kind: z.literal('viewing_now'), at, fundraiser: campaignRef, count: z.number().int().describe('visitors with the page open in the last two minutes') }),
  z.object({ kind: z.literal('submitted_for_review'), at, fundraiser: z.null().describe('never named') }),
  z.object({ kind: z.literal('achievement'), at, fundraiser: campaignRef.nullable(), achievement: z.object({ code: z.string(), label: z.string() }) }),
]);
export type ActivityItem = z.infer<typeof activityItem>;

export const homeResponse = z.object({ data: z.array(activityItem) });
