import type { Request, Response } from 'express';
import { etagOf, ifNoneMatchHits } from '../../http/caching';
import { defineRoutes, route } from '../../http/define-routes';
import { defineLimiter, GENERIC, MINUTE } from '../../http/rate-limits';
import { requestLocale } from '../../integrations/mail';
import { isAchievementLang, type AchievementLang } from './achievements.labels';
import { assetParams, cardAnswer, codeParams, imageLangQuery, langQuery, listAnswer, userParams } from './achievements.schemas';
import { listForUser, readCard } from './achievements.service';
import { CARD_TTL_S, cardPng, cardQr } from './cards.service';
import { CARD_ASSETS } from './cards.template';

/** Achievement card images and QR codes, per IP (CARD_SHARE_RATE_LIMIT a minute). */
export const cardShareLimiter = defineLimiter('cardShare', { windowMs: MINUTE, limit: (c) => c.CARD_SHARE_RATE_LIMIT, key: 'ip', message: GENERIC });

/** `lang` when it is one of the four, else the `lang` cookie / Accept-Language, else en. */
const langOf = (req: Request, lang: string | undefined): AchievementLang => {
  if (isAchievementLang(lang)) return lang;
  const fallback = requestLocale(req);
  return isAchievementLang(fallback) ? fallback : 'en';
};

/** Bytes every caller gets alike: public caching, a strong ETag and 304 on a match. */
function sendBytes(req: Request, res: Response, body: Buffer, type: string): void {
  const etag = etagOf(body);
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', `public, max-age=${CARD_TTL_S}`);
  // The site (another origin) shows these in <img>; helmet's same-origin default would block it.
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  if (ifNoneMatchHits(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).setHeader('Content-Type', type);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

const GUEST_VIEW =
  'A card of an inactive account, a private profile, or one that would reveal an anonymous gift answers 404. ' +
  `Cached ${CARD_TTL_S} s on the server; \`Cache-Control: public, max-age=${CARD_TTL_S}\`, ETag. Card share limiter.`;

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/users/:id/achievements',
      summary: "A user's achievements",
      description:
        'Newest first; `code` is the public code of the achievement\'s card. Earned on events: first gift, first campaign live, ' +
        'goal reached, 10 and 100 donors on a campaign, first update (each once). Labels follow `lang`. A private profile lists ' +
        'none to anyone but its owner; an achievement earned through an anonymous gift shows only to its earner. 404 for an ' +
        'unknown account and, to others, an inactive one.',
      auth: 'optional',
      limiters: ['public'],
      params: userParams,
      query: langQuery,
      response: listAnswer,
      errors: [404],
      handler: ({ req, db, actor, params, query }) => listForUser(db, actor, params.id, langOf(req, query.lang)),
    }),
    route({
      method: 'get',
      path: '/achievements/:code',
      summary: 'One achievement card',
      description:
        'The card by its public code: label (by `lang`), when, who earned it, the campaign when a guest may read it, the card ' +
        "page on the site and its share images. The earner always sees their card; others get 404 for an inactive account, a " +
        'private profile, or an achievement that would reveal an anonymous gift.',
      auth: 'optional',
      limiters: ['public'],
      params: codeParams,
      query: langQuery,
      response: cardAnswer,
      errors: [404],
      handler: ({ req, ctx, actor, params, query }) => readCard(ctx, actor, params.code, langOf(req, query.lang)),
    }),
    route({
      method: 'get',
      path: '/cards/:code/share/:asset',
      skipGlobalLimiter: true,
      summary: 'Achievement card share image (PNG)',
      description: `og.png 1200x630, square.png 1080x1080 (with the QR code), story.png 1080x1920 (with the QR code); lang picks the labels (default en). ${GUEST_VIEW}`,
      auth: 'none',
      limiters: [cardShareLimiter],
      params: assetParams,
      query: imageLangQuery,
      produces: 'image/png',
      errors: [404],
      handler: async ({ req, res, ctx, params, query }) =>
        sendBytes(req, res, await cardPng(ctx, params.code, query.lang ?? 'en', CARD_ASSETS[params.asset]), 'image/png'),
    }),
    route({
      method: 'get',
      path: '/cards/:code/qr.svg',
      skipGlobalLimiter: true,
      summary: "QR code of an achievement card's page (SVG)",
      description: `Encodes \`{SITE_URL}/cards/{code}\`. ${GUEST_VIEW}`,
      auth: 'none',
      limiters: [cardShareLimiter],
      params: codeParams,
      produces: 'image/svg+xml',
      errors: [404],
      handler: async ({ req, res, ctx, params }) => sendBytes(req, res, Buffer.from(await cardQr(ctx, params.code)), 'image/svg+xml'),
    }),
  ],
  { tag: 'achievements' },
);
