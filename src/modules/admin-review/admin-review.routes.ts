import { z } from 'zod';
import { defineRoutes, idParams, route } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';
import { fundraiserDetail, fundraiserEnvelope } from '../fundraisers';
import * as service from './admin-review.service';

const staff = { role: 'staff' } as const;

const queueItem = fundraiserDetail.extend({ submitted_at: z.string().describe('when the campaign entered review') });

export default defineRoutes(
  '/admin',
  [
    route({
      method: 'get',
      path: '/review-queue',
      summary: 'Campaigns awaiting platform review (staff)',
      description: 'Pending, non-deleted campaigns, oldest submission first; items are the slug-read detail plus beneficiary_contact, trustStatus and submitted_at. limit 1 to 100 (default 20), offset >= 0.',
      auth: staff,
      query: z.object({ limit: pageLimit(), offset: pageOffset() }),
      response: z.object({
        data: z.array(queueItem),
        pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
      }),
      handler: async ({ ctx, actor, query }) => service.reviewQueue(ctx, actor, query.limit, query.offset),
    }),
    route({
      method: 'post',
      path: '/fundraisers/:id/approve',
      summary: 'Approve a pending campaign (staff): pending -> active, approved_at set',
      description: '404 unknown or deleted; 403 SELF_REVIEW when the reviewer owns the campaign; 409 INVALID_STATUS_TRANSITION when the campaign is not pending.',
      auth: staff,
      params: idParams,
      response: fundraiserEnvelope,
      errors: [404, 409],
      handler: async ({ ctx, actor, params }) => service.approve(ctx, actor, params.id),
    }),
    route({
      method: 'post',
      path: '/fundraisers/:id/reject',
      summary: 'Reject a pending campaign (staff): pending -> rejected',
      description: 'Body { reasons: string[] } (1 to 20 reasons, each 1 to 500 characters); shown to the owner in trustStatus.rejectionReasons. 403 SELF_REVIEW when the reviewer owns the campaign; 409 when not pending.',
      auth: staff,
      params: idParams,
      body: z.object({ reasons: z.array(z.string().trim().min(1).max(500)).min(1).max(20) }),
      response: fundraiserEnvelope,
      errors: [404, 409],
      handler: async ({ ctx, actor, params, body }) => service.reject(ctx, actor, params.id, body.reasons),
    }),
  ],
  { tag: 'admin' },
);
