import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { ORG_ROLES } from '../../http/permissions';
import { pageLimit, pageOffset } from '../../http/schema-helpers';

/** The org-admin path rule (spec): anything else is an unknown organization (404), never a 400. */
export const ORG_SLUG = /^[a-z0-9][a-z0-9-]{0,254}$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const FUNDRAISER_STATUSES = ['draft', 'pending', 'rejected', 'active', 'paused', 'ended'] as const;
export const DONATION_STATUSES = ['paid', 'refunded', 'failed', 'pending'] as const;

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((s) => /^https?:\/\/[^\s/]+/i.test(s), 'must be an http(s) URL');
const blankable = (max: number) => z.string().max(max).nullable().optional();

const orgFields = {
  name: z.string().trim().min(1).max(200),
  description: blankable(5000).describe('Plain text (tags are removed)'),
  website: httpUrl.nullable().optional(),
  logo: httpUrl.nullable().optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code')
    .transform((s) => s.toUpperCase())
    .nullable()
    .optional(),
};

export const createOrgBody = z.object({
  ...orgFields,
  slug: z
    .string()
    .regex(ORG_SLUG, 'must match ^[a-z0-9][a-z0-9-]{0,254}$')
    .refine((s) => !UUID_RE.test(s), 'must not look like a uuid (ids and slugs share /organizations/{idOrSlug})')
    .optional()
    .describe('Derived from the name when omitted (a suffix keeps it unique); a taken slug answers 409 SLUG_TAKEN'),
  parent_id: uuid.nullable().optional().describe('Makes the new organization a child of one where you hold org.manage_children'),
});
export type CreateOrgBody = z.infer<typeof createOrgBody>;

export const settingsBody = z.object({
  name: orgFields.name.optional(),
  description: orgFields.description,
  website: orgFields.website,
  logo: orgFields.logo,
  country: orgFields.country,
});
export type SettingsBody = z.infer<typeof settingsBody>;

export const organization = z.object({
  id: uuid,
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  website: z.string().nullable(),
  logo: z.string().nullable(),
  country: z.string().nullable(),
  parent_id: uuid.nullable(),
  verified: z.boolean(),
  created_at: z.string(),
}).meta({ id: 'Organization' });
export const orgEnvelope = z.object({ data: organization });

const pagination = z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() });
export const paged = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination });

export const pageQuery = z.object({ limit: pageLimit(), offset: pageOffset() });
export const listQuery = z.object({
  q: z.string().max(200).optional().describe('Matches name or slug (case-insensitive substring)'),
  limit: pageLimit(),
  offset: pageOffset(),
});

export const idOrSlugParams = z.object({ idOrSlug: z.string().max(300) });
export const slugParams = z.object({ slug: z.string().max(300).describe('^[a-z0-9][a-z0-9-]{0,254}$; anything else 404') });
export const memberParams = slugParams.extend({ userId: uuid });
export const documentParams = z.object({ idOrSlug: z.string().max(300), documentId: uuid });
export const adminDocumentParams = slugParams.extend({ documentId: uuid });

export const stats = z.object({
  data: z.object({ total_raised_cents: z.number().int(), fundraiser_count: z.number().int(), donor_count: z.number().int(), member_count: z.number().int() }),
}).meta({ id: 'OrganizationStats' });

const userCard = z.object({ id: uuid, name: z.string().nullable(), avatar: z.string().nullable(), profile_slug: z.string().nullable() });
export const member = z.object({ user: userCard, role: z.enum(ORG_ROLES), joined_at: z.string() }).meta({ id: 'OrganizationMember' });
export const memberEnvelope = z.object({ data: member });

export const addMemberBody = z
  .object({
    email: z.string().trim().max(320).email().optional(),
    user_id: uuid.optional(),
    role: z.enum(ORG_ROLES),
  })
  .refine((b) => (b.email === undefined) !== (b.user_id === undefined), { message: 'give exactly one of email or user_id' });
export const roleBody = z.object({ role: z.enum(ORG_ROLES) });

export const userSearchQuery = z.object({
  q: z.string().max(200).optional().describe('An exact email address, or 2+ characters of a name or profile slug; shorter gives []'),
});
export const userSearchAnswer = z.object({ data: z.array(userCard.extend({ role: z.enum(ORG_ROLES).nullable() })) });

export const document = z.object({
  id: uuid,
  name: z.string(),
  content_type: z.string(),
  bytes: z.number().int(),
  is_public: z.boolean(),
  url: z.string().nullable().describe('Public documents: their public download path; private ones: null (read them through org admin)'),
  created_at: z.string(),
}).meta({ id: 'OrganizationDocument' });
export const documentEnvelope = z.object({ data: document });
export const documentQuery = z.object({
  name: z.string().trim().min(1).max(200),
  is_public: z.enum(['true', 'false']).default('false'),
});

export const fundraiserStatusQuery = z.object({
  status: z.string().max(100).optional().describe(`one of ${FUNDRAISER_STATUSES.join(', ')}; other values 400 with \`allowed\``),
  limit: pageLimit(),
  offset: pageOffset(),
});
export const donationStatusQuery = z.object({
  status: z.string().max(100).optional().describe(`one of ${DONATION_STATUSES.join(', ')}; other values 400 with \`allowed\``),
  limit: pageLimit(),
  offset: pageOffset(),
});

export const orgFundraiser = z.object({
  id: uuid,
  title: z.string(),
  slug: z.string(),
  status: z.enum(FUNDRAISER_STATUSES),
  visibility: z.string(),
  goal_amount_cents: z.number().int(),
  total_raised_cents: z.number().int(),
  currency: z.string(),
  donor_count: z.number().int(),
  donation_count: z.number().int(),
  cover_image: z.string().nullable(),
  owner_user_id: uuid,
  org_id: uuid,
  end_date: z.string().nullable(),
  approved_at: z.string().nullable(),
  created_at: z.string(),
});

export const orgDonation = z.object({
  id: uuid,
  fundraiser: z.object({ id: uuid, title: z.string(), slug: z.string() }),
  amount_cents: z.number().int(),
  tip_cents: z.number().int(),
  refunded_cents: z.number().int(),
  currency: z.string(),
  status: z.enum(DONATION_STATUSES),
  anonymous: z.boolean(),
  donor_name: z.string().nullable().describe('null for anonymous gifts'),
  donor_email: z.string().nullable().describe('only with org.read_donors; null for anonymous gifts'),
  message: z.string().nullable(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
});

export const dashboard = z.object({
  data: z.object({
    totalRaisedCents: z.number().int(),
    uniqueDonors: z.number().int(),
    donationCount: z.number().int(),
    fundraiserCount: z.number().int(),
    activeFundraiserCount: z.number().int(),
    memberCount: z.number().int(),
    organizationCount: z.number().int().describe('this organization and every organization below it'),
    currency: z.string(),
  }),
});

export const orgUpdate = z.object({
  id: uuid,
  fundraiser: z.object({ id: uuid, title: z.string(), slug: z.string() }),
  type: z.literal('update'),
  title: z.string().nullable(),
  body: z.string(),
  language: z.string(),
  like_count: z.number().int(),
  created_at: z.string(),
  edited_at: z.string().nullable(),
});

export const childBody = z.object({ organization_id: uuid });

export const payoutItem = z.object({
  id: uuid,
  amount_cents: z.number().int(),
  currency: z.string(),
  status: z.enum(['pending', 'in_transit', 'paid', 'failed']),
  arrival_date: z.string().nullable(),
});
