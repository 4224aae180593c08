import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';
import { fundraiserCard } from '../discovery';

export const SCOPES = ['all', 'campaigns', 'users', 'orgs', 'donors'] as const;
export type Scope = (typeof SCOPES)[number];

const text = (description: string) => z.union([z.string(), z.array(z.string())]).optional().describe(description);

export const searchQuery = z.object({
  q: text('The search text (whitespace collapsed, at most 200 characters). Fewer than 2 characters: every list empty.'),
  scope: z.enum(SCOPES).default('all').describe('all (default) | campaigns | users | orgs | donors; the lists not asked for are empty'),
  limit: pageLimit({ def: 20, max: 100 }),
  offset: pageOffset(),
  lang: text('en | ru | uk | es: campaign text; otherwise the `lang` cookie, then Accept-Language'),
});

const userHit = z.object({ id: uuid, name: z.string().nullable(), slug: z.string().nullable(), avatar: z.string().nullable() });
const orgHit = z.object({ id: uuid, slug: z.string(), name: z.string(), logo: z.string().nullable(), verified: z.boolean() });
const donorHit = z.object({
  kind: z.literal('guest'),
  key: z.string().describe('the public donor page: GET /donors/guest/{key}'),
  name: z.string(),
});

export const searchResponse = z.object({
  data: z.object({
    campaigns: z.array(fundraiserCard),
    users: z.array(userHit),
    orgs: z.array(orgHit),
    donors: z.array(donorHit),
  }),
  query: z.string().describe('the search text as it was used (trimmed, whitespace collapsed, cut to 200 characters)'),
});
