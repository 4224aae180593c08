import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';

export const IMPACT_RAIL_MAX = 100;

export const listQuery = z.object({ limit: pageLimit({ def: 20, max: 100 }), offset: pageOffset() });
export const impactQuery = z.object({
  lang: z.union([z.string(), z.array(z.string())]).optional().describe('en | ru | uk | es (accepted for the site; names are not translated)'),
});

const person = { id: uuid, name: z.string().nullable(), slug: z.string().nullable(), avatar: z.string().nullable() };

export const listResponse = z.object({
  data: z.array(z.object({ ...person, bio: z.string().nullable() })),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

export const impactResponse = z.object({
  data: z.array(
    z.object({
      ...person,
      raised_cents: z.number().int().describe('paid to campaigns they run'),
      given_cents: z.number().int().describe('their paid gifts, net of refunds'),
      driven_cents: z.number().int().describe('paid gifts their referral links drove (not self-referred)'),
      impact_cents: z.number().int().describe('raised + given + driven'),
    }),
  ),
  total: z.number().int().describe('every listed ambassador; may exceed the (at most 100) rows'),
});

const httpUrl = z.string().trim().max(2048).regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/]+\S*$/, 'must be an http(s) URL');

export const applicationBody = z.object({
  name: z.string().trim().min(1).max(100).describe('plain text'),
  email: z.email().max(254),
  message: z.string().trim().min(1).max(2000).describe('plain text: why you want to be an ambassador'),
  links: z.array(httpUrl).max(5).optional().describe('up to 5 http(s) links (social profiles, a website)'),
});

export const applicationResponse = z.object({ data: z.object({ id: uuid, status: z.literal('received') }) });
