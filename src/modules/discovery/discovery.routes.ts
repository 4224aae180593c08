import { defineRoutes, route } from '../../http/define-routes';
import { prepareAnswer, sendPrepared } from '../../http/caching';
import type { ReadOutcome } from '../../http/read-cache/read-cache';
import { onDb } from '../../db/read-context';
import { ApiError } from '../../http/errors';
import { lookupZip } from '../../integrations/geo';
import * as params from './discovery.params';
import * as reads from './discovery.reads';
import * as repo from './discovery.repo';
import { LIST_POLICY, listBody } from './list-body';
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

// Mounted before the fundraisers module so /fundraisers/cities wins over /fundraisers/:id.
export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/fundraisers',
      skipGlobalLimiter: true,
      readCache: true,
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
      handler: async ({ req, res, ctx, actor, query }) => {
        const near = params.parseNear(req.query.near);
        const status = params.parseStatus(query.status);
        const categoryValue = params.first(query.category)?.trim();
        const filter: Omit<reads.ListFilter, 'categoryIds'> = {
          status,
          q: params.parseQ(query.q),
          projects: params.parseProjects(query.projects),
          sort: params.first(query.sort) === 'raised' ? 'raised' : 'newest',
          lang: params.resolveLang(req, query.lang),
          limit: query.limit,
          offset: query.offset,
          near: near ? { ...near, radiusMi: params.parseRadius(query.radius_mi) } : null,
        };
        // On a standby when one is fresh enough (src/db/replicas.ts), else the primary.
        const compute = () =>
          ctx.replicas.read(actor, async (db, replayLsn): Promise<ReadOutcome> => {
            const categoryIds = categoryValue ? await repo.findCategoryIds(db, categoryValue) : null;
            const answer = prepareAnswer(await listBody(onDb(ctx, db), res, { ...filter, categoryIds }), LIST_POLICY);
            return { answer, cacheable: true, fundraiserId: null, replayLsn };
          });
        // The broad lists (no q, no near) are the same for every caller: the read cache keys them by
        // the parsed filter, so spellings of one query share an entry. Ranked and near-me searches read the database.
        if (!ctx.readCache || filter.q || filter.near) return sendPrepared(req, res, (await compute()).answer);
        const key = `list:${filter.status}:${filter.projects}:${filter.sort}:${filter.lang}:${filter.limit}:${filter.offset}:${categoryValue ?? ''}`;
        return ctx.readCache.serve(req, res, key, compute);
      },
    }),
    route({
      method: 'get',
      path: '/fundraisers/cities',
      skipGlobalLimiter: true,
      readCache: true,
      summary: 'Cities with at least one active public campaign, with a campaign count',
      description: "Label 'City, ST' in the US, 'City, Country' elsewhere; lat/lng 2 decimals; count desc then label. Cached 5 minutes.",
      auth: 'none',
      limiters: ['public'],
      response: citiesResponse,
      handler: async ({ req, res, ctx }) => {
        const compute = async (): Promise<ReadOutcome> => ({
          answer: prepareAnswer({ data: await ctx.cache.wrap('discovery:cities', CITIES_TTL_SECONDS, () => ctx.replicas.read(null, (db) => reads.cityRows(db))) }, null),
          cacheable: true,
          fundraiserId: null,
        });
        if (!ctx.readCache) return sendPrepared(req, res, (await compute()).answer);
        return ctx.readCache.serve(req, res, 'cities', compute);
      },
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
      skipGlobalLimiter: true,
      readCache: true,
      summary: 'Campaign categories with names in the requested language',
      description: 'Language: `lang` (en, ru, uk, es), else the `lang` cookie, else Accept-Language, else en.',
      auth: 'none',
      limiters: ['public'],
      query: langQuery,
      response: categoriesResponse,
      handler: async ({ req, res, ctx, query }) => {
        const lang = params.resolveLang(req, query.lang) ?? 'en';
        const compute = async (): Promise<ReadOutcome> => {
          // Under a listening read cache the database is read directly: a category edit drops the
          // cached answer on commit, and a refill from the 5-minute store would bring the old names back.
          const load = () => ctx.replicas.read(null, (db) => repo.categories(db));
          const rows = ctx.readCache?.active ? await load() : await ctx.cache.wrap('discovery:categories', CATEGORIES_TTL_SECONDS, load);
          const data = rows.map((c) => ({ id: c.id, slug: c.slug, name: c.names[lang] ?? c.names.en ?? c.slug }));
          return { answer: prepareAnswer({ data }, null), cacheable: true, fundraiserId: null };
        };
        if (!ctx.readCache) return sendPrepared(req, res, (await compute()).answer);
        return ctx.readCache.serve(req, res, `categories:${lang}`, compute);
      },
    }),
  ],
  { tag: 'discovery' },
);
