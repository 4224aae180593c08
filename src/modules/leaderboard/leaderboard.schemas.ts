import { z } from 'zod';
import { pageLimit, pageOffset } from '../../http/schema-helpers';
import { AUDIENCES, PERIODS } from './leaderboard.repo';

export const Q_MAX = 100;

export const leaderboardQuery = z.object({
  period: z.enum(PERIODS).default('all').describe('all (default), 30d, 7d: gifts settled in that window'),
  audience: z.enum(AUDIENCES).default('all').describe('all (default), creators, ambassadors (rank on impact), donors (rank on given)'),
  q: z
    .string()
    .max(2000)
    .optional()
    .transform((s) => s?.trim().slice(0, Q_MAX) || null)
    .describe(`name filter: trimmed and cut to ${Q_MAX} characters; ranks keep their numbers`),
  offset: pageOffset(),
  limit: pageLimit({ def: 25, max: 100 }),
  lang: z.string().optional().describe('en | ru | uk | es (default from Accept-Language); rows carry no translated text'),
});

const money = z.number().int();
export const leaderboardRow = z.object({
  rank: z.number().int().nullable().describe('position in the whole ranking (null only in `me` when unranked)'),
  kind: z.enum(['user', 'anonymous']),
  user: z.object({ id: z.string().uuid(), name: z.string().nullable(), avatar: z.string().nullable(), profile_slug: z.string().nullable() }).nullable(),
  anonymousKey: z.string().nullable().describe('anonymous rows only: opaque, the key of the giver\'s page GET /donors/anon/{key}'),
  raised_cents: money,
  given_cents: money,
  driven_cents: money,
  impact_cents: money.describe('raised + given + driven'),
}).meta({ id: 'LeaderboardEntry' });
export const leaderboardAnswer = z.object({
  data: z.array(leaderboardRow),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
  me: leaderboardRow.nullable().describe('the caller\'s standing in this period and audience; null for guests'),
});

export const topCreatorsQuery = z.object({ limit: pageLimit({ def: 10, max: 50 }) });
export const topCreatorsAnswer = z.object({
  data: z.array(
    z.object({
      id: z.string().uuid(),
      name: z.string().nullable(),
      slug: z.string().nullable(),
      avatar: z.string().nullable(),
      fundsRaised: z.number().describe('decimal dollars (the one money field not in cents)'),
    }),
  ),
  cached: z.boolean().describe('whether this answer came from the cache (up to 60 s old)'),
});

export const donorParams = z.object({
  kind: z.enum(['guest', 'anon']),
  key: z.string().regex(/^[0-9a-f]{20}$/, 'must be 20 lower-case hex characters'),
});
export const donorAnswer = z.object({
  data: z.object({
    name: z.string().nullable().describe('null for anonymous identities'),
    given_cents: money,
    gifts: z.number().int(),
    campaigns: z.array(z.object({ id: z.string().uuid(), title: z.string(), slug: z.string() })),
    campaignsHidden: z.number().int().describe('campaigns supported that are not public'),
  }),
});
