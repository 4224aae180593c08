import { defineRoutes, route } from '../../http/define-routes';
import { PUBLIC_READ_MAX_AGE, sendCacheable } from '../../http/caching';
import { ApiError } from '../../http/errors';
import { lookupZip } from '../../integrations/geo';
import { toCard } from './card';
import * as params from './discovery.params';
import * as repo from './discovery.repo';
import { atLeastPage, listTotalKey } from './list-cache';
import { boundedSearch } from './search-limit';
import {
  categoriesResponse,
  citiesResponse,
  langQuery,
  listQuery,
  listResponse,
  zipParams,
  zipResponse,
} from './discovery.schemas';

const CITIES_TTL_SECONDS = 300;
const CATEGORIES_TTL_SECONDS = 300;
const ZIP_TTL_SECONDS = 86_400;
const TOTAL_TTL_SECONDS = 30;

// Mounted before the fundraisers module so /fundraisers/cities wins over /fundraisers/:id.
export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/fundraisers',
      summary: 'List public campaigns (FundraiserCard), with search, filters and near-me',
      description:
        'Only public, non-deleted campaigns with status active or ended. Repeated parameters use their first value ' +
        '(except `near`: 400). Language: `lang`, else the `lang` cookie, else Accept-Language. ' +
        'Caching: `Cache-Control: public, max-age=30` and an `ETag` (If-None-Match answers 304); the total of a list ' +
        'without q or near may be up to 30 s stale. Offset at most 10,000 (beyond: 400 OFFSET_TOO_LARGE). Ranked search (q), ' +
        'sort=raised and near are bounded per process: beyond the running ' +
        'and queued ones, or when one runs too long, 503 with Retry-After and code SEARCH_BUSY or SEARCH_TIMEOUT.',
      auth: 'optional',
      limiters: ['public'],
      query: listQuery,
      response: listResponse,
      errors: [503],
      handler: async ({ req, res, ctx, db, query }) => {
        const near = params.parseNear(req.query.near);
        const status = params.parseStatus(query.status);
        const categoryValue = params.first(query.category)?.trim();
        const categoryIds = categoryValue ? await repo.findCategoryIds(db, categoryValue) : null;
        const filter: repo.ListFilter = {
          status,
          categoryIds,
          q: params.parseQ(query.q),
          projects: params.parseProjects(query.projects),
          sort: params.first(query.sort) === 'raised' ? 'raised' : 'newest',
          lang: params.resolveLang(req, query.lang),
          limit: query.limit,
          offset: query.offset,
          near: near ? { ...near, radiusMi: params.parseRadius(query.radius_mi) } : null,
        };
        const pagination = { limit: filter.limit, offset: filter.offset };
        // An unknown category matches nothing (not an error: the list ignores what it cannot use).
        if (categoryIds && categoryIds.length === 0) return { data: [], pagination: { ...pagination, total: 0 } };
        // The total of a broad filter (no q, no near) is O(campaigns) to count: served from a
        // 30-second cache (the spec allows card counts up to 30 s stale). Few keys: status x category x projects.
        const broad = !filter.q && !filter.near;
        // Campaign writes bump the keys' version (list-cache.ts), so create, publish and delete show at once.
        const key = broad ? await listTotalKey(ctx, `${filter.status}:${categoryIds?.join('.') ?? '*'}:${String(filter.projects)}`) : '';
        // A cached total lets the page be one query with no count; on a miss the same query counts.
        const knownTotal = broad ? await ctx.cache.get<number>(key) : undefined;
        // Ranked search, the raised ordering and distance filters are the expensive reads: they share
        // search's concurrency gate and statement timeout, so a burst of them cannot starve the rest.
        const expensive = Boolean(filter.q) || filter.sort === 'raised' || Boolean(filter.near);
        const { rows, total } = expensive
          ? await boundedSearch(ctx, res, (trx) => repo.listCards(trx, filter, filter.q ? undefined : { knownTotal }))
          : await repo.listCards(db, filter, { knownTotal });
        if (broad && knownTotal === undefined) await ctx.cache.set(key, total, TOTAL_TTL_SECONDS);
        const body = { data: rows.map(toCard), pagination: { ...pagination, total: atLeastPage(total, filter.offset, rows.length) } };
        // Cards are the same for every caller; the language may come from the cookie or Accept-Language.
        return sendCacheable(req, res, body, { scope: 'public', maxAge: PUBLIC_READ_MAX_AGE, vary: ['Accept-Language'] });
      },
    }),
    route({
      method: 'get',
      path: '/fundraisers/cities',
      summary: 'Cities with at least one active public campaign, with a campaign count',
      description: "Label 'City, ST' in the US, 'City, Country' elsewhere; lat/lng 2 decimals; count desc then label. Cached 5 minutes.",
      auth: 'none',
      limiters: ['public'],
      response: citiesResponse,
      handler: async ({ ctx }) => ({
        data: await ctx.cache.wrap('discovery:cities', CITIES_TTL_SECONDS, () => repo.cityRows(ctx.db)),
      }),
    }),
    route({
      method: 'get',
      path: '/locations/zip/:zip',
      summary: 'Look up a 5-digit US ZIP code',
      auth: 'none',
      limiters: ['public'],
      params: zipParams,
      response: zipResponse,
      errors: [404],
      handler: async ({ ctx, params: p, res }) => {
        if (!/^\d{5}$/.test(p.zip)) throw new ApiError(400, 'Invalid ZIP', 'zip must be a 5-digit US ZIP code');
        const hit = await ctx.cache.wrap(`discovery:zip:${p.zip}`, ZIP_TTL_SECONDS, async () => lookupZip(p.zip));
        if (!hit) throw new ApiError(404, 'Not found', `ZIP ${p.zip} not found`);
        res.setHeader('Cache-Control', 'public, max-age=86400');
        return { data: hit };
      },
    }),
    route({
      method: 'get',
      path: '/categories',
      summary: 'Campaign categories with names in the requested language',
      description: 'Language: `lang` (en, ru, uk, es), else the `lang` cookie, else Accept-Language, else en.',
      auth: 'none',
      limiters: ['public'],
      query: langQuery,
      response: categoriesResponse,
      handler: async ({ req, ctx, query }) => {
        const lang = params.resolveLang(req, query.lang) ?? 'en';
        const rows = await ctx.cache.wrap('discovery:categories', CATEGORIES_TTL_SECONDS, () => repo.categories(ctx.db));
        return { data: rows.map((c) => ({ id: c.id, slug: c.slug, name: c.names[lang] ?? c.names.en ?? c.slug })) };
      },
    }),
  ],
  { tag: 'discovery' },
);
