import { sendCacheable } from '../../http/caching';
import { cookieOptions } from '../../http/cookies';
import { defineRoutes, route } from '../../http/define-routes';
import { defineLimiter, fixed, GENERIC, MINUTE } from '../../http/rate-limits';
import { VISITOR_COOKIE, visitorCookie } from '../../http/visitor';
import { requestLocale } from '../../integrations/mail';
import { isLang, readable } from '../fundraisers';
import { homeQuery, homeResponse, presenceParams, presenceQuery } from './activity.schemas';
import { HOME_ACTIVITY_TTL_SECONDS, homeActivity, newVisitorId, recordPresence } from './activity.service';

/** Presence pings, per IP and campaign. */
export const presenceLimiter = defineLimiter('presence', { windowMs: MINUTE, limit: fixed(4), key: 'ip+campaign', message: GENERIC });

const VISITOR_COOKIE_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/home/activity',
      skipGlobalLimiter: true,
      summary: 'The public homepage feed',
      description:
        'Newest first: gifts (`donor_name` null when anonymous or the donor\'s profile is private), clicks on referral ' +
        'links, visits through shared links in the last hour (`count`), people viewing a campaign now (`count`, pages ' +
        'open in the last two minutes), campaigns submitted for review (`fundraiser` always null) and achievements ' +
        'earned. Only public, non-deleted campaigns that are active or ended are named; other events are left out. ' +
        '`Cache-Control: public, max-age=15`; the server also caches the feed 15 s.',
      auth: 'none',
      limiters: ['public'],
      query: homeQuery,
      response: homeResponse,
      handler: async ({ req, res, ctx, query }) => {
        const q = Array.isArray(query.lang) ? query.lang[0] : query.lang;
        const lang = isLang(q) ? q : (requestLocale(req) ?? 'en');
        const data = await homeActivity(ctx, lang, query.limit);
        sendCacheable(req, res, { data }, { scope: 'public', maxAge: HOME_ACTIVITY_TTL_SECONDS, vary: ['Accept-Language'] });
      },
    }),
    route({
      method: 'post',
      path: '/presence/fundraisers/:id',
      skipGlobalLimiter: true,
      summary: 'Mark a campaign page as open (feeds "viewing now")',
      description:
        'No body; answers 204. The visitor is the `visitor_id` cookie, or query `v` (`^[A-Za-z0-9_-]{8,64}$`; a ' +
        'malformed `v` is 400). A browser with neither gets a new `visitor_id` cookie. Only a one-way hash of campaign and ' +
        'visitor is stored. The campaign must be readable without signing in (else 404). Presence limiter: 4 a minute ' +
        'per IP and campaign; not counted by the global limiter.',
      auth: 'none',
      limiters: [presenceLimiter],
      params: presenceParams,
      query: presenceQuery,
      status: 204,
      errors: [404],
      handler: async ({ req, res, ctx, params, query }) => {
        const campaign = await readable(ctx, null, { id: params.id });
        let visitor = query.v ?? visitorCookie(req);
        if (!visitor) {
          visitor = newVisitorId();
          res.cookie(VISITOR_COOKIE, visitor, { ...cookieOptions(ctx.config), maxAge: VISITOR_COOKIE_MAX_AGE_MS });
        }
        await recordPresence(ctx, campaign.id, visitor);
      },
    }),
  ],
  { tag: 'activity' },
);
