import { z } from 'zod';
import { pageLimit, pageOffset } from '../../http/schema-helpers';
import { LIMIT_DEFAULT, LIMIT_MAX } from './discovery.params';

// Query values arrive as a string, or an array when repeated; the handler applies the spec's
// rules itself (see discovery.params.ts), so validation here never rejects a value.
const param = (description: string) => z.union([z.string(), z.array(z.string())]).optional().describe(description);

export const listQuery = z.object({
  status: param('active (end date not passed) | closed | ended (= closed) | all (default). Other values: 400 `Invalid status` with `allowed`.'),
  category: param('Category id, slug or name (any locale, case-insensitive).'),
  q: param('Free-text search over title, summary, story, category and location (full-text per locale plus trigram fallback for short or misspelled words); matches ranked first, then newest.'),
  projects: param('true: projects only; false: fundraisers only; omitted: both.'),
  sort: param('`raised` for most raised first (also with `q`, where it replaces the search rank); anything else newest first (or by search rank with `q`). Ignored with `near`.'),
  lang: param('en | ru | uk | es. Card text is overlaid from stored translations by `lang`, else the `lang` cookie, else Accept-Language.'),
  // Parsed here with the spec's clamping (never a 400), so the document shows them as integers.
  limit: pageLimit({ def: LIMIT_DEFAULT, max: LIMIT_MAX }),
  offset: pageOffset(),
  near: param('`<lat>,<lng>` decimal degrees. Lists only campaigns whose city point lies within radius_mi, nearest first then most raised; each card carries distance_mi. Invalid, empty or repeated: 400 `invalid_near`.'),
  radius_mi: param('1..100 miles, default 20; larger is 100, smaller is 1, non-numeric is 20; ignored without near.'),
});

export const langQuery = z.object({
  lang: param('en | ru | uk | es; otherwise the `lang` cookie, then Accept-Language, then en.'),
});

export const fundraiserCard = z
  .object({
    id: z.string().uuid(),
    title: z.string(),
    slug: z.string(),
    summary: z.string().nullable(),
    goal_amount_cents: z.number().int(),
    total_raised_cents: z.number().int(),
    percentage_funded: z.number().describe('total_raised_cents / goal_amount_cents * 100, two decimals; 0 when the goal is 0'),
    currency: z.string(),
    status: z.enum(['active', 'ended']),
    type: z.enum(['personal', 'for_others', 'charity']),
    is_project: z.boolean(),
    category: z.string().nullable().describe('category id as a string'),
    category_name: z.string().nullable().describe('category name in the resolved language (en by default)'),
    cover_image: z.string().nullable(),
    cover_image_focal_x: z.number().nullable(),
    cover_image_focal_y: z.number().nullable(),
    cover_tint: z.string().nullable(),
    location: z.string().nullable(),
    end_date: z.string().nullable().describe('YYYY-MM-DD'),
    donor_count: z.number().int(),
    owner: z.object({
      id: z.string().uuid(),
      name: z.string().nullable(),
      avatar: z.string().nullable(),
      profile_slug: z.string().nullable(),
    }),
    created_at: z.string().describe('ISO 8601'),
    distance_mi: z.number().optional().describe('miles from `near`, one decimal; present on near lists only'),
  })
  // A named component (components.schemas.FundraiserCard) so clients find the card shape by name.
  .meta({
    id: 'FundraiserCard',
    description:
      'FundraiserCard: the list read of a campaign (GET /fundraisers). The detail fields it shares keep their names; ' +
      'beyond them it carries percentage_funded, category_name, owner { id, name, avatar, profile_slug }, created_at, ' +
      'and distance_mi on near lists only.',
  });

export const listResponse = z.object({
  data: z.array(fundraiserCard),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

export const cityRow = z.object({
  label: z.string().describe("'City, ST' in the US, 'City, Country' elsewhere"),
  lat: z.number().describe('2 decimals'),
  lng: z.number().describe('2 decimals'),
  count: z.number().int().describe('active public campaigns in the city'),
}).meta({ id: 'City' });

export const citiesResponse = z.object({ data: z.array(cityRow) });

export const zipParams = z.object({ zip: z.string().describe('5-digit US ZIP') });

export const zipResponse = z.object({
  data: z.object({
    zip: z.string(),
    city: z.string(),
    state: z.string(),
    label: z.string(),
    lat: z.number(),
    lng: z.number(),
  }),
});

export const categoriesResponse = z.object({
  data: z.array(z.object({ id: z.number().int(), slug: z.string(), name: z.string() })),
});
