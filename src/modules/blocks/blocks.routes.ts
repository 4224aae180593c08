import { z } from 'zod';
import { defineRoutes, idParams, route } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';
import * as service from './blocks.service';

const blockedUser = z.object({
  id: z.string(),
  name: z.string().nullable(),
  avatar: z.string().nullable(),
  handle: z.string().nullable().describe('the public profile slug'),
  blocked_at: z.string(),
});
const listResponse = z.object({
  data: z.array(blockedUser),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

const EFFECTS =
  'A blocked user cannot comment on the blocker\'s campaigns or follow the blocker (their existing follow ends), and the blocker no longer sees their comments.';

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/users/me/blocks',
      summary: 'The users the caller blocked',
      description: 'Newest first. Each item is the public face of the account (name, avatar, handle), never an email.',
      auth: 'required',
      query: z.object({ limit: pageLimit({ def: 50, max: 100 }), offset: pageOffset() }),
      response: listResponse,
      handler: ({ ctx, actor, query }) => service.listBlocks(ctx, actor.userId, query.limit, query.offset),
    }),
    route({
      method: 'put',
      path: '/users/:id/block',
      summary: 'Block a user',
      description: `Idempotent; 204. Blocking yourself is 400, an unknown user 404. ${EFFECTS}`,
      auth: 'required',
      params: idParams,
      status: 204,
      errors: [404],
      handler: async ({ ctx, actor, params }) => {
        await service.block(ctx, actor.userId, params.id);
      },
    }),
    route({
      method: 'delete',
      path: '/users/:id/block',
      summary: 'Unblock a user',
      description: 'Idempotent; 204 whether or not the user was blocked.',
      auth: 'required',
      params: idParams,
      status: 204,
      handler: async ({ ctx, actor, params }) => {
        await service.unblock(ctx, actor.userId, params.id);
      },
    }),
  ],
  { tag: 'blocks' },
);
