import { defineRoutes, route } from '../../http/define-routes';
import * as reads from './ambassadors.reads';
import { applicationBody, applicationResponse, impactQuery, impactResponse, listQuery, listResponse } from './ambassadors.schemas';
import * as service from './ambassadors.service';

const WHO =
  'Ambassadors are accounts with the ambassador role that are not banned or deactivated and whose profile is public.';

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/ambassadors',
      skipGlobalLimiter: true,
      summary: 'The public ambassador directory',
      description: `${WHO} Sorted by name.`,
      auth: 'none',
      limiters: ['public'],
      query: listQuery,
      response: listResponse,
      handler: async ({ db, query }) => {
        const { rows, total } = await reads.page(db, query.limit, query.offset);
        return { data: rows, pagination: { limit: query.limit, offset: query.offset, total } };
      },
    }),
    route({
      method: 'get',
      path: '/ambassadors/impact',
      skipGlobalLimiter: true,
      summary: 'Ambassadors ranked by impact (at most 100)',
      description: `${WHO} impact = raised + given + driven, in cents; \`total\` counts every ambassador and may exceed the rows.`,
      auth: 'none',
      limiters: ['public'],
      query: impactQuery,
      response: impactResponse,
      handler: ({ ctx }) => service.impactRail(ctx),
    }),
    route({
      method: 'post',
      path: '/ambassador-applications',
      summary: 'Apply to become an ambassador',
      description: 'Name and message are stored as plain text (markup removed). Strict limiter: 5 a minute per IP.',
      auth: 'optional',
      limiters: ['strict'],
      body: applicationBody,
      status: 201,
      response: applicationResponse,
      handler: async ({ ctx, actor, body }) => ({ data: await service.apply(ctx, actor, body) }),
    }),
  ],
  { tag: 'ambassadors' },
);
