import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset, safeInt } from '../../http/schema-helpers';

const SLUG = /^[a-z0-9][a-z0-9-]{2,62}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const PRICE_MIN = 100;
export const PRICE_MAX = 1_000_000;

export const interval = z.enum(['month', 'year']);

/** `{id}` of every community route: the uuid or the slug (anything else is 400). */
export const idOrSlug = z
  .string()
  .max(64)
  .refine((v) => UUID.test(v) || SLUG.test(v.toLowerCase()), { message: 'must be a community id (uuid) or slug' })
  .describe('The community id (uuid) or its slug');

export const communityParams = z.object({ id: idOrSlug });
export const requestParams = z.object({ id: idOrSlug, requestId: uuid });
export const leaderParams = z.object({ id: idOrSlug, userId: uuid });

export const memberEnvelope = z.object({
  data: z.object({
    community_id: z.string(),
    user_id: z.string(),
    role: z.enum(['leader', 'member']),
    status: z.enum(['active', 'canceled']),
  }),
});

export const createCommunityBody = z.object({
  name: z.string().trim().min(1).max(100),
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .regex(SLUG, 'must be 3 to 63 characters: lower-case letters, digits and hyphens, starting with a letter or digit')
    .refine((v) => !UUID.test(v), 'must not look like a uuid')
    .optional()
    .describe('Derived from the name when absent; a taken slug answers 409 `SLUG_TAKEN`'),
  description: z.string().max(2000).nullable().optional().describe('Plain text (tags are removed)'),
  is_private: z.boolean().optional().describe('A private community takes members only through approval'),
  requires_approval: z.boolean().optional().describe('Leaders approve each paid join'),
  price_cents: safeInt(PRICE_MIN, PRICE_MAX).describe(`${PRICE_MIN} to ${PRICE_MAX.toLocaleString('en')} (USD cents) per interval`),
  interval,
});

export const community = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  is_private: z.boolean(),
  requires_approval: z.boolean(),
  price_cents: z.number().int(),
  currency: z.literal('USD'),
  interval,
  owner_user_id: z.string(),
  member_count: z.number().int(),
  created_at: z.string(),
  membership: z
    .object({ role: z.enum(['owner', 'leader', 'member']), status: z.enum(['active', 'canceled']) })
    .nullable()
    .optional()
    .describe("The signed-in caller's membership (null when none); absent for guests"),
  fund_balance_cents: z.number().int().optional().describe('The community fund, shown to its owner only'),
}).meta({ id: 'Community' });
export const communityEnvelope = z.object({ data: community });

export const joinBody = z.object({ interval: interval.describe("Must be the community's interval (400 `INTERVAL_NOT_OFFERED` otherwise)") });

export const joinStatus = z.enum(['requires_payment_method', 'pending_approval', 'approved', 'pending_payment', 'active', 'declined', 'payment_failed', 'canceled']);

export const joinAnswer = z.object({
  data: z.object({
    join_id: z.string(),
    status: joinStatus,
    intent_type: z.enum(['setup', 'payment']),
    client_secret: z.string(),
  }),
});

export const joinRequest = z.object({
  id: z.string(),
  community_id: z.string(),
  user: z.object({ id: z.string(), name: z.string().nullable(), avatar: z.string().nullable() }),
  interval,
  amount_cents: z.number().int(),
  currency: z.literal('USD'),
  status: joinStatus,
  decided_at: z.string().nullable(),
  created_at: z.string(),
}).meta({ id: 'CommunityJoinRequest' });
export const joinRequestEnvelope = z.object({ data: joinRequest });

export const joinRequestsQuery = z.object({
  status: z.enum(['pending_approval', 'requires_payment_method', 'all_open']).default('pending_approval').describe('`all_open` lists both'),
  limit: pageLimit({ def: 20, max: 100 }),
  offset: pageOffset(),
});
export const joinRequestsAnswer = z.object({
  data: z.array(joinRequest),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

export const codeAnswer = z.object({
  data: z.object({
    method: z.literal('email'),
    sent_to_hint: z.string().describe('The address the code went to, masked (e.g. `a***@example.com`)'),
    expires_at: z.string(),
  }),
});

export const withdrawalBody = z.object({
  amount_cents: safeInt(1, 2_147_483_647).describe('At most the fund balance (400 `INSUFFICIENT_FUNDS` otherwise)'),
  code: z.string().regex(/^\d{6}$/, 'must be the 6-digit code'),
});

export const withdrawalAnswer = z.object({
  data: z.object({
    id: z.string(),
    community_id: z.string(),
    amount_cents: z.number().int(),
    currency: z.literal('USD'),
    status: z.literal('transferred'),
    fund_balance_cents: z.number().int(),
    created_at: z.string(),
  }),
});
