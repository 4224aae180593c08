import type { Request, Response } from 'express';
import { z } from 'zod';
import { etagOf, ifNoneMatchHits } from '../../http/caching';
import { defineRoutes, route } from '../../http/define-routes';
import { SHARE_LANGS } from './labels';
import { CAMPAIGN_TTL_S, campaignPng, PROFILE_TTL_S, profilePng, shareKit } from './share-images.service';
import type { CampaignFormat } from './templates';

const slugParams = z.object({ slug: z.string().min(1).max(200) });
const profileParams = z.object({ idOrSlug: z.string().min(1).max(100) });
const langQuery = z.object({
  lang: z.enum(SHARE_LANGS).optional().describe("labels' language (en, ru, uk, es); default the campaign's own language"),
});

/** Sends bytes every caller gets alike: public caching, a strong ETag and 304 on a match. */
function sendBytes(req: Request, res: Response, body: Buffer, type: string, maxAge: number, extra: Record<string, string> = {}): void {
  const etag = etagOf(body);
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', `public, max-age=${maxAge}`);
  // Helmet's same-origin policy would stop the site (another origin) from showing these in <img>.
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  if (ifNoneMatchHits(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).setHeader('Content-Type', type);
  res.setHeader('Content-Length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}

const CAMPAIGN_DOC =
  'Drawn from the guest view of the campaign (404 for drafts, paused, private, deleted and unknown slugs, checked on every request, so a change is seen at once): title (translated when `lang` has a translation), ' +
  'raised and goal with a progress bar, donors, and the cover when the service stores it (never fetched from elsewhere). ' +
  `Cached ${CAMPAIGN_TTL_S} s on the server; \`Cache-Control: public, max-age=${CAMPAIGN_TTL_S}\`, ETag.`;

const image = (format: CampaignFormat, file: string, size: string, summary: string) =>
  route({
    method: 'get',
    path: `/fundraisers/slug/:slug/${file}`,
    skipGlobalLimiter: true,
    summary: `${summary} (${size} PNG)`,
    description: CAMPAIGN_DOC,
    auth: 'none',
    limiters: ['public'],
    params: slugParams,
    query: langQuery,
    produces: 'image/png',
    errors: [404],
    handler: async ({ req, res, ctx, params, query }) =>
      sendBytes(req, res, await campaignPng(ctx, params.slug, query.lang, format), 'image/png', CAMPAIGN_TTL_S),
  });

export default defineRoutes(
  '',
  [
    image('og', 'og.png', '1200x630', 'Campaign link-preview image'),
    image('poster', 'poster.png', '1080x1080', 'Campaign square poster'),
    image('story', 'story.png', '1080x1920', 'Campaign story card'),
    route({
      method: 'get',
      path: '/fundraisers/slug/:slug/share-kit.zip',
      skipGlobalLimiter: true,
      summary: 'Campaign share kit: og.png, poster.png and story.png in one zip',
      description: CAMPAIGN_DOC + ' Downloaded as `<slug>-share-kit.zip`.',
      auth: 'none',
      limiters: ['public'],
      params: slugParams,
      query: langQuery,
      produces: 'application/zip',
      errors: [404],
      handler: async ({ req, res, ctx, params, query }) => {
        const zip = await shareKit(ctx, params.slug, query.lang);
        const name = params.slug.toLowerCase().replace(/[^a-z0-9-]/g, '') || 'campaign';
        sendBytes(req, res, zip, 'application/zip', CAMPAIGN_TTL_S, { 'Content-Disposition': `attachment; filename="${name}-share-kit.zip"` });
      },
    }),
    route({
      method: 'get',
      path: '/profiles/:idOrSlug/share-image.png',
      skipGlobalLimiter: true,
      summary: 'Profile share image (1200x630 PNG)',
      description:
        `Name, handle, bio and avatar (when the service stores it) of a public profile; private, missing and inactive accounts 404 (checked on every request, so making a profile private takes effect at once). lang picks the labels (default en). Cached ${PROFILE_TTL_S} s; \`Cache-Control: public, max-age=${PROFILE_TTL_S}\`, ETag.`,
      auth: 'none',
      limiters: ['public'],
      params: profileParams,
      query: z.object({ lang: z.enum(SHARE_LANGS).optional().describe('labels\' language (en, ru, uk, es); default en') }),
      produces: 'image/png',
      errors: [404],
      handler: async ({ req, res, ctx, params, query }) =>
        sendBytes(req, res, await profilePng(ctx, params.idOrSlug, query.lang), 'image/png', PROFILE_TTL_S),
    }),
  ],
  { tag: 'share-images' },
);
