import type { Request } from 'express';
import { defineRoutes, route } from '../../http/define-routes';
import { requestLocale, type Locale } from '../../integrations/mail';
import {
  availabilityAnswer, availabilityQuery, badgesAnswer, badgesQuery, campaignsAnswer, campaignsQuery, profileBody,
  profileEnvelope, profileParams,
} from './profiles.schemas';
import * as service from './profiles.service';

const locale = (req: Request): Locale => requestLocale(req) ?? 'en';

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/profiles/slug-availability',
      skipGlobalLimiter: true,
      summary: 'Is a profile slug free?',
      description:
        'The slug is trimmed and lower-cased, then checked: `^[a-z0-9][a-z0-9-]{2,39}$` (reason `invalid`), not a reserved word (`reserved`), not held by another account (`taken`). Your own current slug is available to you.',
      auth: 'optional',
      limiters: ['public'],
      query: availabilityQuery,
      response: availabilityAnswer,
      handler: async ({ db, actor, query }) => {
        const slug = service.normalizeSlug(query.slug);
        return { data: { slug, ...(await service.slugVerdict(db, slug, actor?.userId ?? null)) } };
      },
    }),
    route({
      method: 'get',
      path: '/profiles/:idOrSlug',
      skipGlobalLimiter: true,
      summary: 'A public profile',
      description: 'By uuid or slug. A private profile, an inactive account and an unknown one answer 404 to everyone but the account itself.',
      auth: 'optional',
      limiters: ['public'],
      params: profileParams,
      response: profileEnvelope,
      errors: [404],
      handler: async ({ db, actor, params }) => ({ data: await service.readProfile(db, actor, params.idOrSlug) }),
    }),
    route({
      method: 'get',
      path: '/profiles/:idOrSlug/badges',
      skipGlobalLimiter: true,
      summary: 'Trust badges of a profile',
      description:
        'Bare `{ badges }`, newest first. Badges derive from public facts: `verified_email`, `staff` and `ambassador` (dated from the account: role grants carry no date), `first_campaign` (a public campaign went live), `first_gift` (the first paid gift that was not anonymous), `goal_reached` (a public campaign reached its goal), `endorser` (first endorsement of a public campaign). Labels follow `lang`. A private profile lists none to anyone but its owner; 404 when the profile does not exist.',
      auth: 'optional',
      limiters: ['public'],
      params: profileParams,
      query: badgesQuery,
      response: badgesAnswer,
      errors: [404],
      handler: async ({ req, db, actor, params }) => service.badges(db, actor, params.idOrSlug, locale(req)),
    }),
    route({
      method: 'get',
      path: '/profiles/:idOrSlug/campaigns',
      skipGlobalLimiter: true,
      summary: 'Campaigns of a profile',
      description:
        '`{ data }`: the profile\'s own campaigns (`is_endorsed: false`) and those it endorsed (`is_endorsed: true`), newest first (by creation or endorsement), at most `limit` (1 to 100, default 20). Visitors see public campaigns that are active or ended; the owner also sees their own drafts, pending, paused, unlisted and private ones (never rejected or deleted). Endorsed campaigns show only while public and active or ended. A private profile lists nothing to others. Titles and summaries follow `lang` where a translation exists.',
      auth: 'optional',
      limiters: ['public'],
      params: profileParams,
      query: campaignsQuery,
      response: campaignsAnswer,
      errors: [404],
      handler: async ({ req, db, actor, params, query }) =>
        service.campaigns(db, actor, params.idOrSlug, requestLocale(req), query.limit),
    }),
    route({
      method: 'patch',
      path: '/users/me/profile',
      summary: 'Edit your profile',
      description:
        'Partial: `{ name?, slug?, bio?, avatar?, is_private? }`. Name and bio are plain text (markup removed); slug as for the availability check (invalid or reserved 400, taken 409 `SLUG_TAKEN`); avatar an http(s) URL. Answers the profile as `GET /profiles/{idOrSlug}` shows it to you.',
      auth: 'required',
      body: profileBody,
      response: profileEnvelope,
      errors: [409],
      handler: async ({ db, actor, body }) => ({ data: await service.updateMyProfile(db, actor, body) }),
    }),
  ],
  { tag: 'profiles' },
);
