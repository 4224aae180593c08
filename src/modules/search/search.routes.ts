import { PUBLIC_READ_MAX_AGE, sendCacheable } from '../../http/caching';
import { defineRoutes, route } from '../../http/define-routes';
import { requestLocale } from '../../integrations/mail';
import { isLang } from '../fundraisers';
import { searchQuery, searchResponse } from './search.schemas';
import { normaliseQ, search } from './search.service';

export default defineRoutes(
  '/search',
  [
    route({
      method: 'get',
      path: '/',
      skipGlobalLimiter: true,
      summary: 'Search campaigns, people, organizations and donors',
      description:
        '`{ data: { campaigns, users, orgs, donors }, query }`; the lists of scopes not asked for are empty, and q shorter ' +
        'than 2 characters gives every list empty. Each list pages by `limit` (default 20, at most 100) and `offset`. ' +
        'campaigns: public active or ended campaigns, ranked as `GET /fundraisers?q=` (same cards; 503 SEARCH_BUSY or ' +
        'SEARCH_TIMEOUT with Retry-After on overload). users: active accounts with a public profile, by name or profile ' +
        'slug (private profiles are never listed). orgs: organizations by name or slug. donors: guest donors (no account) ' +
        'by the name on their named gifts to public campaigns, with the key of their public donor page; anonymous gifts ' +
        'are never searched; donor rows come only at offset 0 and only when q holds 3 consecutive letters or digits. ' +
        'The answer is the same for every caller: `Cache-Control: public, max-age=30`.',
      auth: 'optional',
      limiters: ['public'],
      query: searchQuery,
      response: searchResponse,
      errors: [503],
      handler: async ({ req, res, ctx, query }) => {
        const q = normaliseQ(query.q);
        const l = (Array.isArray(query.lang) ? query.lang[0] : query.lang)?.trim().toLowerCase();
        const lang = isLang(l) ? l : requestLocale(req);
        const body = await search(ctx, res, { q, scope: query.scope, limit: query.limit, offset: query.offset, lang });
        sendCacheable(req, res, body, { scope: 'public', maxAge: PUBLIC_READ_MAX_AGE, vary: ['Accept-Language'] });
      },
    }),
  ],
  { tag: 'search' },
);
