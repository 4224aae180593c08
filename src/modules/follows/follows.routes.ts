import { defineRoutes, route } from '../../http/define-routes';
import { followBody, followEnvelope, followList, listQuery, unfollowParams } from './follows.schemas';
import * as service from './follows.service';

// Follows connect the follower to the holder's campaigns: their updates reach the follower's feed.
export default defineRoutes(
  '/subscriptions',
  [
    route({
      method: 'post',
      path: '/',
      summary: 'Follow a user or an organization',
      description:
        'There is no campaign-level follow. 201 with the new follow; 200 with the same row when already following. Following yourself is 400; an unknown user or organization 404; a user who blocked the caller 403 (code BLOCKED). The followed user gets a `new_follower` notification once per follower.',
      auth: 'required',
      body: followBody,
      status: 201,
      alsoAnswers: { 200: 'Already following: the existing follow' },
      response: followEnvelope,
      errors: [404],
      handler: async ({ res, ctx, actor, body }) => {
        const r = await service.follow(ctx, actor.userId, body.following_type, body.following_id);
        res.status(r.created ? 201 : 200).json({ data: r.data });
      },
    }),
    route({
      method: 'delete',
      path: '/:following_type/:following_id',
      summary: 'Unfollow',
      description:
        'Idempotent; 204. Following again later starts a new relationship: updates posted before it read as read in the campaign-updates feed.',
      auth: 'required',
      params: unfollowParams,
      status: 204,
      handler: async ({ ctx, actor, params }) => {
        await service.unfollow(ctx, actor.userId, params.following_type, params.following_id);
      },
    }),
    route({
      method: 'get',
      path: '/',
      summary: "The caller's follows",
      description: 'Active follows, newest first, paged by offset.',
      auth: 'required',
      query: listQuery,
      response: followList,
      handler: ({ ctx, actor, query }) => service.listFollows(ctx, actor.userId, query.limit, query.offset),
    }),
  ],
  { tag: 'follows' },
);
