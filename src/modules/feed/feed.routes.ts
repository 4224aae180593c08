import { defineRoutes, idParams, route } from '../../http/define-routes';
import { sendCacheable } from '../../http/caching';
import { feedQuery, feedResponse, readAllBody, readResponse } from './feed.schemas';
import * as service from './feed.service';

const CONNECTED =
  "Connected campaigns: those whose holder the caller follows (the organization for an organization's campaign, else the owner) while public and active or ended, and those the caller gave a paid gift to while active, paused or ended and not private (unlisted included); never the caller's own. Updates posted before the relationship began read as read; unfollowing and following again moves that start.";

// Reading the feed publishes no event and writes no audit entry.
export default defineRoutes(
  '/me/campaign-updates',
  [
    route({
      method: 'get',
      path: '/',
      summary: "The caller's campaign-updates feed",
      description: `Newest first, paged by an opaque keyset cursor (next_cursor null on the last page). ${CONNECTED} unread_count counts the whole feed, as updatesUnreadCount on GET /notifications does. Cache-Control: private, no-store.`,
      auth: 'required',
      query: feedQuery,
      response: feedResponse,
      handler: async ({ req, res, ctx, actor, query }) => {
        const body = await service.feedPage(ctx, actor.userId, { limit: query.limit, cursor: query.cursor || undefined, lang: query.lang });
        sendCacheable(req, res, body, { scope: 'private' });
      },
    }),
    route({
      method: 'put',
      path: '/read-all',
      summary: 'Mark the whole feed read',
      description: 'Optional body `{ until }` (ISO timestamp): only updates posted at or before it are marked, compared at the millisecond (the precision `created_at` is shown in), so an item\'s own `created_at` includes that item. `updated` counts the updates this call marked.',
      auth: 'required',
      body: readAllBody,
      response: readResponse,
      handler: ({ ctx, actor, body }) => service.readAll(ctx, actor.userId, body?.until ?? null),
    }),
    route({
      method: 'put',
      path: '/:id/read',
      summary: 'Mark one update read',
      description: 'Already read gives `updated: 0`. 404 when the update is unknown, deleted or not in the caller\'s feed; 400 when the id is not a uuid.',
      auth: 'required',
      params: idParams,
      response: readResponse,
      errors: [404],
      handler: ({ ctx, actor, params }) => service.readOne(ctx, actor.userId, params.id),
    }),
  ],
  { tag: 'campaign-updates' },
);
