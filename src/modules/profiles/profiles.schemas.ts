import { z } from 'zod';
import { pageLimit } from '../../http/schema-helpers';

export const SLUG_RE = /^[a-z0-9][a-z0-9-]{2,39}$/;
export const NAME_MAX = 100;
export const BIO_MAX = 1000;
export const AVATAR_MAX = 2048;

/** A uuid or a profile slug; anything else cannot name a profile and answers 404. */
export const profileParams = z.object({ idOrSlug: z.string().max(200).describe('profile uuid or slug') });

export const langParam = z.string().optional().describe('en | ru | uk | es; otherwise the `lang` cookie, then Accept-Language, then en');

export const badgesQuery = z.object({ lang: langParam });
export const campaignsQuery = z.object({ lang: langParam, limit: pageLimit({ def: 20, max: 100 }) });
export const availabilityQuery = z.object({ slug: z.string().max(200).describe('the slug to check (trimmed, lower-cased)') });

export const profileBody = z.object({
  name: z.string().max(1000).nullable().optional().describe(`plain text (markup removed), 1 to ${NAME_MAX} characters; null clears`),
  slug: z.string().max(200).optional().describe('`^[a-z0-9][a-z0-9-]{2,39}$` after trimming and lower-casing; reserved words refused; unique'),
  bio: z.string().max(10_000).nullable().optional().describe(`plain text (markup removed), at most ${BIO_MAX} characters; null or empty clears`),
  avatar: z.string().max(AVATAR_MAX).nullable().optional().describe(`an http(s) URL, at most ${AVATAR_MAX} characters; null clears`),
  is_private: z.boolean().optional().describe('a private profile is 404 to others and lists no badges or campaigns to them'),
});
export type ProfileBody = z.infer<typeof profileBody>;

export const profile = z.object({
  id: z.string().uuid(),
  slug: z.string().nullable(),
  name: z.string().nullable(),
  avatar: z.string().nullable(),
  bio: z.string().nullable(),
  is_private: z.boolean(),
  created_at: z.string(),
  roles_public: z.array(z.enum(['ambassador', 'staff'])).describe('the platform roles shown on a profile (never admin)'),
}).meta({ id: 'Profile' });
export const profileEnvelope = z.object({ data: profile });

export const availabilityAnswer = z.object({
  data: z.object({
    slug: z.string(),
    available: z.boolean(),
    reason: z.enum(['invalid', 'reserved', 'taken']).nullable().describe('why not available; null when available'),
  }),
});

export const BADGE_CODES = ['verified_email', 'staff', 'ambassador', 'first_campaign', 'first_gift', 'goal_reached', 'endorser'] as const;
export type BadgeCode = (typeof BADGE_CODES)[number];
export const badgesAnswer = z.object({
  badges: z.array(z.object({ code: z.enum(BADGE_CODES), label: z.string(), earned_at: z.string() })),
});

export const profileCampaign = z.object({
  id: z.string().uuid(),
  title: z.string(),
  slug: z.string(),
  summary: z.string().nullable(),
  cover_image: z.string().nullable(),
  status: z.enum(['draft', 'pending', 'active', 'paused', 'ended']),
  visibility: z.enum(['public', 'unlisted', 'private']),
  goal_amount_cents: z.number().int(),
  total_raised_cents: z.number().int(),
  currency: z.string(),
  donor_count: z.number().int(),
  is_endorsed: z.boolean().describe('true for a campaign this profile endorsed, false for its own'),
  owner: z.object({ id: z.string().uuid(), name: z.string().nullable(), avatar: z.string().nullable(), profile_slug: z.string().nullable() }),
  created_at: z.string(),
});
export const campaignsAnswer = z.object({ data: z.array(profileCampaign) });
