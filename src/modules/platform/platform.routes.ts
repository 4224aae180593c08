import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import * as reads from './platform.reads';

const numbers = z
  .object({
    campaigns_live: z.number().int(),
    campaigns_total: z.number().int(),
    users_total: z.number().int(),
    total_raised_cents: z.number().int(),
    donations_total: z.number().int(),
    computed_at: z.string(),
  })
  .describe('Bare object');

export default defineRoutes('', [
  route({
    method: 'get',
    path: '/stats',
    summary: 'Platform statistics (bare object; kept alongside /platform/numbers)',
    auth: 'none',
    limiters: ['public'],
    response: numbers.omit({ computed_at: true }),
    handler: async ({ db }) => reads.platformCounts(db),
  }),
  route({
    method: 'get',
    path: '/platform/numbers',
    summary: 'Headline platform numbers, cached five minutes',
    auth: 'none',
    limiters: ['public'],
    response: numbers,
    handler: async ({ ctx }) =>
      ctx.cache.wrap('platform:numbers', 300, async () => ({
        ...(await reads.platformCounts(ctx.db)),
        computed_at: new Date().toISOString(),
      })),
  }),
], { tag: 'platform' });
