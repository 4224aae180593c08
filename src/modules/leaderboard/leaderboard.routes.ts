import { defineRoutes, route } from '../../http/define-routes';
import { notFound } from '../../http/errors';
import { identityOf } from './donor-keys';
import * as pages from './leaderboard.pages.reads';
import { donorAnswer, donorParams, leaderboardAnswer, leaderboardQuery, topCreatorsAnswer, topCreatorsQuery } from './leaderboard.schemas';
import { leaderboard, REFRESH_AFTER_S } from './leaderboard.service';

const TOP_CREATORS_TTL_S = 60;

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/leaderboard',
      summary: 'Leaderboard',
      description:
        `impact = raised + given + driven, in cents. raised: settled gifts (net of refunds) to the user's campaigns; given: the user's settled gifts that were not anonymous; driven: settled gifts their referral links drove. period all | 30d | 7d counts gifts settled in that window. audience all | creators (users with a live campaign) | ambassadors rank on impact; donors rank on given. Rows with nothing to rank are left out. Anonymous gifts rank as alias rows (kind anonymous, user null) keyed by an opaque \`anonymousKey\`, one per giver, never named; a signed-in donor's anonymous gifts never count on their own row. Private profiles and inactive accounts are not ranked. \`q\` filters by name and keeps ranks. \`me\` is the caller's standing (null for guests). The ranking is precomputed and at most about ${REFRESH_AFTER_S} s behind.`,
      auth: 'optional',
      limiters: ['public'],
      query: leaderboardQuery,
      response: leaderboardAnswer,
      handler: async ({ ctx, actor, query }) => leaderboard(ctx, actor, query),
    }),
    route({
      method: 'get',
      path: '/creators/top',
      summary: 'Top creators',
      description: `Bare \`{ data, cached }\`: creators by what their live campaigns raised, \`fundsRaised\` in decimal dollars; limit 1 to 50 (default 10). Private profiles and inactive accounts are left out. Cached ${TOP_CREATORS_TTL_S} s (\`cached\` says whether this answer came from it).`,
      auth: 'none',
      limiters: ['public'],
      query: topCreatorsQuery,
      response: topCreatorsAnswer,
      handler: async ({ ctx, query }) => {
        const key = `creators:top:${query.limit}`;
        // wrap: concurrent misses share one query (single-flight); `cached` is false for the request that ran it.
        let computed = false;
        const data = await ctx.cache.wrap(key, TOP_CREATORS_TTL_S, async () => {
          computed = true;
          const rows = await pages.topCreators(ctx.db, query.limit);
          return rows.map((r) => ({ id: r.id, name: r.name, slug: r.slug, avatar: r.avatar, fundsRaised: Number(r.raised) / 100 }));
        });
        return { data, cached: !computed };
      },
    }),
    route({
      method: 'get',
      path: '/donors/:kind/:key',
      summary: 'Public donor page',
      description:
        'kind `guest` (a donor without an account, by the address of their named gifts) or `anon` (one giver\'s anonymous gifts); key is the first 20 hex characters of an HMAC of that identity (the `anonymousKey` of leaderboard rows for `anon`). given_cents and gifts over every settled gift (net of refunds), the public campaigns supported (latest first, at most 50) and `campaignsHidden`, the others. name is null for anonymous identities. Unknown keys 404.',
      auth: 'none',
      limiters: ['public'],
      params: donorParams,
      response: donorAnswer,
      errors: [404],
      handler: async ({ ctx, params }) => {
        const identity = await identityOf(ctx.db, params.kind, params.key);
        if (!identity) throw notFound('Donor');
        return { data: await pages.donorPage(ctx.db, params.kind, identity) };
      },
    }),
  ],
  { tag: 'leaderboard' },
);
