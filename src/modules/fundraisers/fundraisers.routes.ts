import type { Request, Response } from 'express';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { PUBLIC_READ_MAX_AGE, prepareAnswer, sendPrepared, type PreparedAnswer } from '../../http/caching';
import type { ReadOutcome } from '../../http/read-cache/read-cache';
import { defineRoutes, idParams, route } from '../../http/define-routes';
import { notFound } from '../../http/errors';
import type { Db } from '../../db/knex';
import { onDb } from '../../db/read-context';
import { ownedFundraiser, ownsFundraiser } from './fundraisers.policy';
import * as repo from './fundraisers.repo';
import {
  createBody,
  deletedSchema,
  detailQuery,
  fundraiserEnvelope,
  shareBody,
  shareChannelsSchema,
  shareCreatedSchema,
  shareImpactSchema,
  slugParams,
  statsSchema,
  updateBody,
} from './fundraisers.schemas';
import * as service from './fundraisers.service';
import type { Lang } from './fundraisers.schemas';
import { buildDetail, canRead, isOwner, isPubliclyReadable, percentageFunded } from './serialize';
import { totalsOf } from './totals';

/**
 * The hot detail reads: row, totals, category, owner profile (and translation) in one query.
 * A guest's read of a public live campaign is the same for everyone: cacheable 30 s by shared
 * caches, and kept by the read cache (dropped on every committed change to the campaign). Owner
 * and signed-in views are private; a signed-in viewer who is not the owner gets the same bytes
 * as a guest, so a fresh cached copy answers them too (and their read fills it); the owner always
 * reads the database.
 */
async function detailRead(
  req: Request,
  res: Response,
  ctx: AppContext,
  actor: Actor | null,
  by: { id: string } | { slug: string },
  lang: Lang | undefined,
  slugRead: boolean,
): Promise<void> {
  // `viewer` is who the answer is built for: the caller, except that a signed-in caller who does
  // not own the campaign gets the guest's bytes (the detail shows only its owner more).
  // On a standby when one is fresh enough for this caller (src/db/replicas.ts), else the primary.
  const compute = () => ctx.replicas.read(actor, async (db, replayLsn): Promise<ReadOutcome> => {
    const hit = await repo.readDetail(db, by, lang);
    if (!hit || !canRead(hit.row, actor)) throw notFound('Fundraiser');
    const viewer = actor && isOwner(hit.row, actor) ? actor : null;
    const data = await buildDetail(onDb(ctx, db), hit.row, { actor: viewer, lang, slugRead }, hit.extras);
    const shared = !viewer && hit.row.visibility === 'public' && isPubliclyReadable(hit.row);
    const answer = prepareAnswer({ data }, shared ? { scope: 'public', maxAge: PUBLIC_READ_MAX_AGE } : { scope: 'private' });
    return { answer, cacheable: shared, fundraiserId: hit.row.id, ownerUserId: hit.row.owner_user_id, replayLsn };
  });
  if (!ctx.readCache) return sendPrepared(req, res, asViewer(actor, (await compute()).answer));
  const key = 'slug' in by ? `slug:${lang ?? ''}:${by.slug}` : `id:${lang ?? ''}:${by.id}`;
  if (!actor) return ctx.readCache.serve(req, res, key, compute);
  // A signed-in viewer other than the owner reads (and fills) the guest's bytes, answered as private.
  const copy = ctx.readCache.viewerCopy(key, actor.userId);
  if (copy) return sendPrepared(req, res, asViewer(actor, copy));
  const seq = ctx.readCache.snapshot();
  const out = await compute();
  ctx.readCache.offer(res, key, seq, out);
  return sendPrepared(req, res, asViewer(actor, out.answer));
}

/** Any answer to a signed-in caller is private: never kept by shared caches or the browser. */
function asViewer(actor: Actor | null, a: PreparedAnswer): PreparedAnswer {
  return actor ? { ...a, cacheControl: 'private, no-store', vary: null } : a;
}

/** GET /:id/stats: the money counters; a guest's read of a public campaign goes through the read cache. */
async function statsRead(req: Request, res: Response, ctx: AppContext, actor: Actor | null, id: string): Promise<void> {
  const compute = () => ctx.replicas.read(actor, async (db, replayLsn): Promise<ReadOutcome> => {
    const row = await service.readable(onDb(ctx, db), actor, { id });
    const t = await totalsOf(db, row.id);
    const data = {
      fundraiser_id: row.id,
      title: row.title,
      goal_amount_cents: Number(row.goal_amount_cents),
      total_raised_cents: t.total_raised_cents,
      total_tips_cents: t.total_tips_cents,
      donation_count: t.donation_count,
      donor_count: t.donor_count,
      recurring_donor_count: Number(row.recurring_donor_count ?? 0),
      percentage_funded: percentageFunded(t.total_raised_cents, Number(row.goal_amount_cents)),
    };
    const shared = !actor && row.visibility === 'public' && isPubliclyReadable(row);
    return { answer: prepareAnswer({ data }, null), cacheable: shared, fundraiserId: row.id, replayLsn };
  });
  if (actor || !ctx.readCache) return sendPrepared(req, res, (await compute()).answer);
  return ctx.readCache.serve(req, res, `stats:${id}`, compute);
}

const CACHE_DOC =
  'Caching: a guest read of a public campaign answers `Cache-Control: public, max-age=30` (cards and counts may be 30 s stale); ' +
  'owner and signed-in reads answer `private, no-store`. Every answer carries an `ETag`; `If-None-Match` with it answers 304.';

const CREATE_DOC = `Status rules: \`draft\` saves a draft (publish gate skipped; an unverified caller may hold at most 5 drafts,
403 UNVERIFIED_DRAFT_LIMIT beyond). Status omitted runs the publish gate (transition table): pass -> draft, flag ->
pending, block -> 403. \`active\` runs the publish gate: pass -> active (approved_at set),
flag -> pending, block -> 403 { code: 'PUBLISH_GATE_FAILED', reasons: [code...], messages: [{ code, message, field? }] }
and nothing is created. \`pending\` runs the gate and, unless blocked, sends the campaign to staff review. Publishing
(active/pending) needs a verified email (403 EMAIL_NOT_VERIFIED). Gate: profile readiness (name, verified email,
verified private contact), at least one image (cover_image or images), reasonability (goal $1-$10M, end_date in the
future and within one year, title >= 5 characters, story >= 20 characters of text) and the content review (banned
content, duplicates). story_html is sanitised (allow-list p, br, strong, b, em, i, u, s, a, ul, ol, li, blockquote,
h2, h3, img; http/https/mailto links only, no protocol-relative URLs; links get rel="noopener noreferrer" target="_blank").
A non-null video_url needs flag features.fundraiser_video (403 with feature_key). Unknown fields are ignored.`;

const UPDATE_DOC = `Owner only (others, and deleted campaigns, 404). Needs a verified email (403 EMAIL_NOT_VERIFIED) unless
the campaign is a draft and the body sends no status or \`draft\`. Status moves: draft -> active (gate: pass active,
flag pending, block 403 PUBLISH_GATE_FAILED, nothing changed) or pending (gate; unless blocked, pending);
active -> paused | ended; paused -> active (resume) | ended; active/paused/ended -> draft unless the campaign has
collected money (409 FUNDS_COLLECTED); pending and rejected change only through staff review; any other move 409
INVALID_STATUS_TRANSITION. Content edits re-run the review; on a live campaign a blocking result refuses the edit (403).`;

/** The referral counts the share stats show; referrals publishes them (it reads fundraisers, so it is passed in, not imported). */
export interface ShareGiftReads {
  giftsByChannel: (db: Db, fundraiserId: string) => Promise<repo.AttributedGifts>;
  giftImpact: (db: Db, fundraiserId: string) => Promise<{ donations: number; raised_cents: number }>;
}

/** The /fundraisers route table; src/modules/index.ts passes the referral reads. */
export function fundraisersRoutes({ giftsByChannel, giftImpact }: ShareGiftReads) {
  return defineRoutes(
    '/fundraisers',
    [
      route({
        method: 'post',
        path: '/',
        summary: 'Create a fundraiser (draft, or publish through the gate)',
        description: CREATE_DOC,
        auth: 'required',
        flag: 'features.fundraiser_creation',
        body: createBody,
        status: 201,
        response: fundraiserEnvelope,
        errors: [403],
        handler: async ({ ctx, actor, body }) => {
          const row = await service.createFundraiser(ctx, actor, body);
          ctx.readCache?.invalidate(row.id);
          return { data: await buildDetail(ctx, row, { actor, slugRead: false }) };
        },
      }),
      route({
        method: 'get',
        path: '/slug/:slug',
        skipGlobalLimiter: true,
        readCache: true,
        summary: 'Fundraiser by slug, with the slug-only fields',
        description:
          'Visibility: live (active, paused, ended), not private, not deleted; otherwise 404 to everyone but the owner. Unlisted campaigns are readable. donor_count is live. beneficiary_contact and trustStatus (cached 15 minutes) only for the owner. ' + CACHE_DOC,
        auth: 'optional',
        limiters: ['public'],
        params: slugParams,
        query: detailQuery,
        response: fundraiserEnvelope,
        errors: [404],
        handler: ({ req, res, ctx, actor, params, query }) => detailRead(req, res, ctx, actor, { slug: params.slug }, query.lang, true),
      }),
      route({
        method: 'get',
        path: '/:id',
        skipGlobalLimiter: true,
        readCache: true,
        summary: 'Fundraiser by id',
        description:
          'Same visibility as the slug read; no slug-only fields; donor_count is the stored counter. lang overlays the stored translation. ' + CACHE_DOC,
        auth: 'optional',
        limiters: ['public'],
        params: idParams,
        query: detailQuery,
        response: fundraiserEnvelope,
        errors: [404],
        handler: ({ req, res, ctx, actor, params, query }) => detailRead(req, res, ctx, actor, { id: params.id }, query.lang, false),
      }),
      route({
        method: 'patch',
        path: '/:id',
        summary: 'Update a fundraiser (owner only); status publishes, sends to review, pauses, resumes or ends',
        description: UPDATE_DOC,
        auth: 'required',
        policy: ownsFundraiser,
        params: idParams,
        body: updateBody,
        response: fundraiserEnvelope,
        errors: [403, 404, 409],
        handler: async ({ req, ctx, actor, body }) => {
          const row = await service.updateFundraiser(ctx, actor, ownedFundraiser(req), body);
          // Committed: this instance drops its copies before answering (others on the notification).
          ctx.readCache?.invalidate(row.id);
          return { data: await buildDetail(ctx, row, { actor, slugRead: false }) };
        },
      }),
      route({
        method: 'delete',
        path: '/:id',
        summary: 'Soft-delete a fundraiser (owner only)',
        description: '400 FUNDS_COLLECTED when the campaign has collected funds; 404 for anyone but the owner and for deleted campaigns.',
        auth: 'required',
        policy: ownsFundraiser,
        params: idParams,
        response: deletedSchema,
        errors: [404],
        handler: async ({ req, ctx }) => {
          const out = await service.deleteFundraiser(ctx, ownedFundraiser(req));
          ctx.readCache?.invalidate(out.id);
          return out;
        },
      }),
      route({
        method: 'get',
        path: '/:id/stats',
        skipGlobalLimiter: true,
        readCache: true,
        summary: 'Fundraiser money stats',
        auth: 'optional',
        limiters: ['public'],
        params: idParams,
        response: statsSchema,
        errors: [404],
        handler: ({ req, res, ctx, actor, params }) => statsRead(req, res, ctx, actor, params.id),
      }),
      route({
        method: 'get',
        path: '/:id/share-channels',
        skipGlobalLimiter: true,
        summary: 'Shares, visits and gifts per share channel (bare object)',
        description:
          'Channels: facebook, x, whatsapp, telegram, email, sms, linkedin, copy_link, qr, other; every one is present with zeros. total sums every channel plus unattributed (visits through shared links whose channel is unknown).',
        auth: 'optional',
        params: idParams,
        response: shareChannelsSchema,
        errors: [404],
        handler: async ({ ctx, actor, params }) => {
          const row = await service.readable(ctx, actor, { id: params.id });
          return repo.shareChannelStats(ctx.db, row.id, await giftsByChannel(ctx.db, row.id));
        },
      }),
      route({
        method: 'post',
        path: '/:id/shares',
        summary: 'Track a share event',
        description: 'Records the signed-in sharer, else an anonymous share; increments shares_count. channel is one of the share-channels names.',
        auth: 'optional',
        params: idParams,
        body: shareBody,
        status: 201,
        response: shareCreatedSchema,
        errors: [404],
        handler: async ({ ctx, actor, params, body }) => {
          const row = await service.readable(ctx, actor, { id: params.id });
          const shares_count = await ctx.db.transaction((trx) => repo.recordShare(trx, row.id, actor?.userId ?? null, body.channel));
          return { data: { fundraiser_id: row.id, channel: body.channel, shares_count } };
        },
      }),
      route({
        method: 'get',
        path: '/:id/share-impact',
        skipGlobalLimiter: true,
        summary: 'All-time impact of shared links',
        description: 'visits via shared links, visits via endorsers\' links, paid non-self-referred gifts; zeros if unshared.',
        auth: 'optional',
        params: idParams,
        response: shareImpactSchema,
        errors: [404],
        handler: async ({ ctx, actor, params }) => {
          const row = await service.readable(ctx, actor, { id: params.id });
          return { data: await repo.shareImpact(ctx.db, row.id, await giftImpact(ctx.db, row.id)) };
        },
      }),
    ],
    { tag: 'fundraisers' },
  );
}

