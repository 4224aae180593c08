import fs from 'node:fs';
import path from 'node:path';
import type { Response } from 'express';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { notFound } from '../../http/errors';
import { PROJECT_ROOT } from '../../project-root';
import type { Lang } from '../fundraisers';
import { EMBED_LANGS, embedLocale } from './embed.labels';
import { campaignPage, EMBED_CSP, notFoundPage, type Theme } from './embed.page';
import { embedCampaign, inlineCover } from './embed.service';

// Plain browser scripts, read from the source tree (not compiled: they run in the partner's browser as written).
const ASSETS = path.join(PROJECT_ROOT, 'src/modules/embed/assets');
const FRAME_JS = fs.readFileSync(path.join(ASSETS, 'frame.js'), 'utf8');
const WIDGET_JS = fs.readFileSync(path.join(ASSETS, 'widget.js'), 'utf8');

const THEMES = ['light', 'dark'] as const;
const pageParams = z.object({ slug: z.string().min(1).max(200) });
const pageQuery = z.object({
  lang: z.enum(EMBED_LANGS).optional().describe('The page\'s language (default en): its words and its number and currency formats'),
  theme: z.enum(THEMES).optional().describe('Colours (default light)'),
});

/**
 * The embed page is the one page other sites may frame: helmet's X-Frame-Options (SAMEORIGIN) and
 * `frame-ancestors 'self'`, which every other page keeps, give way to `frame-ancestors *`.
 */
function framable(res: Response): void {
  res.removeHeader('X-Frame-Options');
  res.setHeader('Content-Security-Policy', EMBED_CSP);
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
}

/** A script other sites load with <script src>: helmet's same-origin resource policy would block it. */
function script(res: Response, body: string): void {
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.type('application/javascript').send(body);
}

/** The embeddable campaign widget (docs/integrators/widget.md). Outside /api/v1: pages and scripts for browsers. */
export default defineRoutes(
  '/embed',
  [
    route<{ slug: string }, { lang?: Lang; theme?: Theme }>({
      method: 'get',
      path: '/fundraisers/:slug',
      summary: 'Embeddable campaign widget page (for an iframe)',
      description:
        "An HTML page made to sit in an `<iframe>` on any site (`Content-Security-Policy: frame-ancestors *`, no `X-Frame-Options`): the campaign's title, cover, goal, amount raised, donors, a progress bar, the five latest gifts (no name for an anonymous gift) and a Donate link that opens the site's campaign page (`{site_url}/fundraisers/{slug}?donate=1`) in a new window. Every number is in the HTML; its script (/embed/frame.js) keeps them live from GET /api/v1/fundraisers/{id}/live and reports the page's height to `<campaign-widget>` (GET /embed/widget.js). A campaign a guest may not read by slug (draft, private, rejected, deleted, or no such slug) answers a 404 page that names nothing. Cached 15 s.",
      auth: 'none',
      limiters: ['public'],
      params: pageParams,
      query: pageQuery,
      produces: 'text/html',
      pageErrors: [404],
      handler: async ({ ctx, params, query, res }) => {
        const lang = query.lang ?? 'en';
        const theme = query.theme ?? 'light';
        const loc = embedLocale(lang);
        const campaign = await embedCampaign(ctx, params.slug, lang);
        framable(res);
        if (!campaign) {
          res.setHeader('Cache-Control', 'no-store');
          res.status(404).type('html').send(notFoundPage(loc, theme));
          return;
        }
        // Shared caches may keep it briefly: the stream corrects the numbers as soon as the page connects.
        res.setHeader('Cache-Control', 'public, max-age=15');
        res.type('html').send(campaignPage(campaign, loc, theme));
      },
    }),
    route<{ slug: string }>({
      method: 'get',
      path: '/fundraisers/:slug/cover',
      summary: "Embeddable widget page's cover, when the campaign stores it inline",
      description:
        'The image of a cover kept as a `data:image/...` URL, so the embed page links it instead of carrying it. 404 when the campaign is not shown by the embed page or its cover is a URL (the page links that URL itself). Cached 5 minutes; the page asks for it with a version that changes with the campaign.',
      auth: 'none',
      limiters: ['public'],
      params: pageParams,
      produces: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
      errors: [404],
      handler: async ({ ctx, params, res }) => {
        const cover = await inlineCover(ctx, params.slug);
        if (!cover) throw notFound('Cover');
        res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
        res.setHeader('Cache-Control', 'public, max-age=300');
        res.type(cover.type).send(cover.bytes);
      },
    }),
    route({
      method: 'get',
      path: '/frame.js',
      summary: "Embeddable widget page's script",
      description: "Run by the embed page: keeps its numbers and gifts live from the campaign's stream and posts its height to the embedding element. Cached 5 minutes.",
      auth: 'none',
      limiters: ['public'],
      produces: 'application/javascript',
      handler: ({ res }) => script(res, FRAME_JS),
    }),
    route({
      method: 'get',
      path: '/widget.js',
      summary: 'Embeddable campaign widget: the <campaign-widget> element',
      description:
        'Defines `<campaign-widget slug="..." lang="en|ru|uk|es" theme="light|dark">`: an iframe of GET /embed/fundraisers/{slug}, sized from the height that page posts (messages are taken only from this service\'s own origin, PUBLIC_URL, and from the element\'s own frame). An unknown lang or theme falls back to the default. Cached 5 minutes.',
      auth: 'none',
      limiters: ['public'],
      produces: 'application/javascript',
      handler: ({ ctx, res }) => script(res, WIDGET_JS.replace("'__SERVICE_ORIGIN__'", JSON.stringify(new URL(ctx.config.PUBLIC_URL).origin))),
    }),
  ],
  { tag: 'embed', root: true },
);
