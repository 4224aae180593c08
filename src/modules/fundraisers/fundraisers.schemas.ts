import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { int32, isoDateInRange } from '../../http/schema-helpers';
import { LIMITS } from './limits';

export const LANGS = ['en', 'ru', 'uk', 'es'] as const;
export type Lang = (typeof LANGS)[number];
export const isLang = (v: unknown): v is Lang => typeof v === 'string' && (LANGS as readonly string[]).includes(v);
/** A stored language code (users.locale, fundraisers.source_language) as one of the four, else English. */
export const langOr = (v: string): Lang => (isLang(v) ? v : 'en');

export const STATUSES = ['draft', 'pending', 'active', 'paused', 'ended', 'rejected'] as const;
export type FundraiserStatus = (typeof STATUSES)[number];

/** Share channels: every one is present (with zeros) in share-channels; anything else is `other`. */
export const SHARE_CHANNELS = ['facebook', 'x', 'whatsapp', 'telegram', 'email', 'sms', 'linkedin', 'copy_link', 'qr', 'other'] as const;
export type ShareChannel = (typeof SHARE_CHANNELS)[number];

const httpUrl = z
  .string()
  .trim()
  .max(LIMITS.urlMax)
  // Case spelled out instead of an `i` flag: the pattern is published in the OpenAPI document,
  // where a JSON Schema pattern carries no flags.
  .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/]+\S*$/, 'must be an http(s) URL')
  .meta({ format: 'uri' });
// Covers may also be inline images (the cover-tint job reads data: URLs too).
const imageRef = z.union([
  httpUrl,
  z
    .string()
    .max(700_000)
    .regex(/^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/=]+$/, 'must be an http(s) or data:image URL'),
]);
const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();
// Far-off drafts stay possible (publishing needs an end within a year anyway); year 0 is no date
// in Postgres, and years past 2999 are typos.
const isoDate = isoDateInRange({ minYear: 1900, maxYear: 2999, dateTime: true })
  .transform((s) => s.slice(0, 10))
  .describe('YYYY-MM-DD, years 1900 to 2999 (a date-time is cut to its date)');

const writable = {
  title: z.string().trim().min(1).max(LIMITS.titleMax),
  summary: optionalText(LIMITS.summaryMax),
  story_html: z.string().max(LIMITS.storyMaxChars).nullable().optional().describe('Sanitised on write (allow-list)'),
  goal_amount_cents: z.number().int().min(0).max(100_000_000_000),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
    .transform((s) => s.toUpperCase())
    .optional(),
  type: z.enum(['personal', 'for_others', 'charity']).optional(),
  is_project: z.boolean().optional(),
  category: z
    .union([z.string().trim().min(1).max(100), int32(1)])
    .nullable()
    .optional()
    .describe('Category id (number or numeric string) or slug; null clears'),
  tags: z
    .array(z.string().trim().min(1).max(LIMITS.tagMax))
    .max(LIMITS.tagsMax)
    .nullable()
    .optional(),
  cover_image: imageRef.nullable().optional(),
  cover_image_focal_x: z.number().min(0).max(1).nullable().optional().describe('0..1 from the left'),
  cover_image_focal_y: z.number().min(0).max(1).nullable().optional().describe('0..1 from the top'),
  images: z.array(imageRef).max(LIMITS.imagesMax).nullable().optional(),
  video_url: httpUrl.nullable().optional().describe('Needs flag features.fundraiser_video (403 with feature_key when off)'),
  location: optionalText(200),
  beneficiary_name: optionalText(200),
  beneficiary_contact: optionalText(200),
  end_date: isoDate.nullable().optional(),
  visibility: z.enum(['public', 'unlisted', 'private']).optional(),
};

export const createBody = z.object({
  ...writable,
  organization_id: uuid
    .optional()
    .describe('Runs the campaign for this organization (its holder for payouts, follows and feeds); needs org.update_settings there (unknown 404 `Organization not found`, else 403 `Requires permission: org.update_settings`)'),
  status: z
    .enum(['draft', 'pending', 'active'])
    .optional()
    .describe('draft: saved, gate skipped. omitted: through the gate, a pass saves a draft, a flag sends to review (pending), a block is 403. active: publish through the gate. pending: send to staff review through the gate.'),
});
export type CreateBody = z.infer<typeof createBody>;

export const updateBody = z.object({
  ...writable,
  title: writable.title.optional(),
  goal_amount_cents: writable.goal_amount_cents.optional(),
  status: z
    .enum(['draft', 'pending', 'active', 'paused', 'ended'])
    .optional()
    .describe('active publishes (draft) or resumes (paused); pending sends a draft to review; paused/ended by the owner; rejected only by staff'),
});
export type UpdateBody = z.infer<typeof updateBody>;
export type WritableFields = Omit<UpdateBody, 'status'>;

export const detailQuery = z.object({ lang: z.enum(LANGS).optional() });
export const slugParams = z.object({ slug: z.string().min(1).max(200) });
export const shareBody = z.object({ channel: z.enum(SHARE_CHANNELS) });

const userMessage = z.object({ code: z.string(), message: z.string(), field: z.string().optional() });
export const trustStatusSchema = z.object({
  aiDecision: z.enum(['approve', 'flag', 'block']),
  trustScore: z.number().int(),
  payoutHold: z.boolean(),
  rejectionReasons: z.array(z.string()),
  userMessages: z.array(userMessage),
});

export const fundraiserDetail = z
  .object({
    id: uuid,
    title: z.string(),
    slug: z.string(),
    summary: z.string().nullable(),
    story_html: z.string().nullable(),
    goal_amount_cents: z.number().int(),
    total_raised_cents: z.number().int().optional().describe('slug read only'),
    currency: z.string(),
    status: z.enum(STATUSES),
    visibility: z.enum(['public', 'unlisted', 'private']),
    type: z.enum(['personal', 'for_others', 'charity']),
    is_project: z.boolean(),
    category: z.string().nullable().describe('category id as a string'),
    category_name: z.string().nullable().optional().describe('slug read only'),
    tags: z.array(z.string()).nullable(),
    cover_image: z.string().nullable(),
    cover_image_focal_x: z.number().nullable(),
    cover_image_focal_y: z.number().nullable(),
    images: z.array(z.string()).nullable(),
    video_url: z.string().nullable(),
    location: z.string().nullable(),
    beneficiary_name: z.string().nullable(),
    beneficiary_contact: z.string().nullable().optional().describe('owner only'),
    owner_user_id: uuid,
    org_id: uuid.nullable(),
    profiles: z
      .object({ name: z.string().nullable(), avatar: z.string().nullable(), email_verified: z.boolean(), profile_slug: z.string().nullable() })
      .nullable()
      .optional()
      .describe('slug read only'),
    donor_count: z.number().int(),
    donation_count: z.number().int().optional().describe('slug read only'),
    percentage_funded: z.number().optional().describe('slug read only'),
    shares_count: z.number().int().optional().describe('slug read only'),
    outcome_report: z
      .object({ body_html: z.string(), images: z.array(z.string()), updated_at: z.string() })
      .nullable()
      .optional()
      .describe('slug read only: what the campaign achieved, as its holder reported it (PUT /fundraisers/{id}/outcome-report); null until then'),
    source_language: z.enum(LANGS),
    end_date: z.string().nullable(),
    approved_at: z.string().nullable(),
    goal_reached_at: z.string().nullable(),
    cover_tint: z
      .string()
      .regex(/^#[0-9A-F]{6}$/)
      .nullable()
      .describe(
        'Very light tint of the cover, computed by a background job (null until then and without a cover; #F9F9FA for a ' +
          'black-and-white cover). Covers on private or link-local addresses are never fetched; loopback (127.0.0.1, ::1) ' +
          'is fetched outside NODE_ENV=production so a local demo can serve covers from localhost.',
      ),
    donations_last_24h: z.number().int().min(0),
    trustStatus: trustStatusSchema.optional().describe('owner only'),
  })
  .meta({ id: 'Fundraiser', description: 'Fundraiser detail read (GET /fundraisers/{id} and /fundraisers/slug/{slug})' });

export const fundraiserEnvelope = z.object({ data: fundraiserDetail });

export const statsSchema = z.object({
  data: z.object({
    fundraiser_id: uuid,
    title: z.string(),
    goal_amount_cents: z.number().int(),
    total_raised_cents: z.number().int(),
    total_tips_cents: z.number().int(),
    donation_count: z.number().int(),
    donor_count: z.number().int(),
    recurring_donor_count: z.number().int().describe('Donors with a live monthly gift (active, paused or past due)'),
    percentage_funded: z.number(),
  }),
}).meta({ id: 'FundraiserStats' });

const channelStats = z.object({ shares: z.number().int(), visits: z.number().int(), donations: z.number().int(), raised_cents: z.number().int() });
export const shareChannelsSchema = z
  .object({
    total: channelStats.describe('sums over every channel plus unattributed'),
    channels: z.object(Object.fromEntries(SHARE_CHANNELS.map((c) => [c, channelStats])) as Record<ShareChannel, typeof channelStats>),
    unattributed: channelStats.describe('visits and gifts through shared links whose channel is unknown'),
  })
  .describe('Bare object; every channel present with zeros');
export const shareImpactSchema = z.object({
  data: z.object({ visits: z.number().int(), endorser_visits: z.number().int(), donations: z.number().int(), raised_cents: z.number().int() }),
});
export const shareCreatedSchema = z.object({
  data: z.object({ fundraiser_id: uuid, channel: z.enum(SHARE_CHANNELS), shares_count: z.number().int() }),
});
export const deletedSchema = z.object({ message: z.string(), id: uuid });
