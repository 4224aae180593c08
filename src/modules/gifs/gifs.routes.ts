import { sendCacheable } from '../../http/caching';
import { defineRoutes, route } from '../../http/define-routes';
import { gifList, searchQuery, TERM_MAX, trendingQuery } from './gifs.schemas';
import { GIF_CACHE_S, search, trending } from './gifs.service';

const COMMON =
  `Through the configured GIF library (GIF_PROVIDER tenor or giphy, filtered for a general audience); none configured: \`{ data: [] }\`. ` +
  `limit 1 to 50 (default 20), offset 0 to 4999. Cached ${GIF_CACHE_S} s on the server and \`Cache-Control: public, max-age=${GIF_CACHE_S}\`. ` +
  'Public limiter and the GIF bucket (60 a minute per account, per IP for guests), shared with comments that carry a gif_id. 502 when the library fails.';

export default defineRoutes(
  '/gifs',
  [
    route({
      method: 'get',
      path: '/trending',
      skipGlobalLimiter: true,
      summary: 'Trending GIFs',
      description: COMMON,
      auth: 'optional',
      limiters: ['public', 'gifs'],
      query: trendingQuery,
      response: gifList,
      errors: [502],
      handler: async ({ req, res, ctx, query }) =>
        sendCacheable(req, res, { data: await trending(ctx, query) }, { scope: 'public', maxAge: GIF_CACHE_S }),
    }),
    route({
      method: 'get',
      path: '/search',
      skipGlobalLimiter: true,
      summary: 'Search GIFs',
      description: `q is whitespace-collapsed and cut to ${TERM_MAX} characters (an empty term answers \`{ data: [] }\`). ${COMMON}`,
      auth: 'optional',
      limiters: ['public', 'gifs'],
      query: searchQuery,
      response: gifList,
      errors: [502],
      handler: async ({ req, res, ctx, query }) =>
        sendCacheable(req, res, { data: await search(ctx, query.q, query) }, { scope: 'public', maxAge: GIF_CACHE_S }),
    }),
  ],
  { tag: 'gifs' },
);
