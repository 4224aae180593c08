import { clientIp } from '../../http/client-ip';
import { defineRoutes, route } from '../../http/define-routes';
import { defineLimiter, fixed, GENERIC, MINUTE } from '../../http/rate-limits';
import { visitorCookie } from '../../http/visitor';
import { clickBody } from './referrals.schemas';
import * as service from './referrals.service';

/** Referral clicks, per signed-in user or per IP: above the global 100, so the route skips that bucket. */
export const referralClicksLimiter = defineLimiter('referralClicks', { windowMs: MINUTE, limit: fixed(120), key: 'caller', message: GENERIC });

export default defineRoutes(
  '/referrals',
  [
    route({
      method: 'post',
      path: '/clicks',
      skipGlobalLimiter: true,
      summary: 'Record a click on a referral link',
      description:
        '`ref` is the referrer\'s profile slug or a share code; `channel` one of the share-channels names. The campaign must ' +
        'be readable by the caller (else 404). Records a visit through a shared link (share-impact, share-channels); a ' +
        'later paid gift by the same signed-in account to that campaign within 30 days is attributed to the click ' +
        '(last click wins) and counts as money the referrer drove, unless the donor is the referrer; a gift started with ' +
        '`ref` (POST /donations, /payments/create-intent) is attributed to that ref instead, guests\' gifts too. Repeated clicks by ' +
        'the same caller (account, else `visitor_id` cookie, else IP) on the same link within 30 minutes count once. ' +
        'Answers 204 with no body.',
      auth: 'optional',
      limiters: [referralClicksLimiter],
      body: clickBody,
      status: 204,
      errors: [404],
      handler: async ({ req, ctx, actor, body }) => {
        const visitor = visitorCookie(req);
        const callerKey = actor ? `u:${actor.userId}` : visitor ? `v:${visitor}` : `ip:${clientIp(req)}`;
        await service.recordClick(ctx, actor, callerKey, body);
      },
    }),
  ],
  { tag: 'referrals' },
);
