import { defineRoutes, idParams, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { requestLocale } from '../../integrations/mail';
import { ownedCampaign, ownsCampaign } from './endorsements.policy';
import { endorseBody, endorsementEnvelope, requestBody, requestEnvelope } from './endorsements.schemas';
import * as service from './endorsements.service';

export default defineRoutes(
  '/fundraisers',
  [
    route({
      method: 'post',
      path: '/:id/endorse',
      skipGlobalLimiter: true,
      summary: 'Endorse a campaign',
      description:
        'Body `{ message? }` (plain text, markup removed, at most 500 characters). 201 with the endorsement; endorsing again answers 200 with it (a given message replaces the old one). Only public campaigns that are active or ended (else 400 `FUNDRAISER_NOT_PUBLIC`; unreadable ones 404); your own campaign 403 `SELF_ENDORSEMENT`. The holder gets an `endorsement_received` notification once per endorser.',
      auth: 'required',
      limiters: ['authenticated'],
      params: idParams,
      body: endorseBody,
      status: 201,
      alsoAnswers: { 200: 'Endorsed before: the endorsement, its message replaced when one was given' },
      response: endorsementEnvelope,
      errors: [404],
      handler: async ({ ctx, res, actor, params, body }) => {
        const r = await service.endorse(ctx, actor, params.id, body);
        // The pipeline answers the declared 201; a repeat endorsement answers 200 itself.
        if (!r.created) {
          res.status(200).json({ data: r.data });
          return undefined;
        }
        return { data: r.data };
      },
    }),
    route({
      method: 'delete',
      path: '/:id/endorse',
      skipGlobalLimiter: true,
      summary: 'Withdraw your endorsement',
      description: '204 whether or not you had endorsed the campaign; 404 when the campaign is not readable.',
      auth: 'required',
      limiters: ['authenticated'],
      params: idParams,
      status: 204,
      errors: [404],
      handler: async ({ ctx, actor, params }) => {
        await service.withdraw(ctx, actor, params.id);
      },
    }),
    route({
      method: 'post',
      path: '/:id/endorsement-requests',
      skipGlobalLimiter: true,
      summary: 'Ask someone to endorse your campaign',
      description: `Owner only (others 404). Body \`{ email }\`: mails the address a link to the campaign, in the request's language (\`lang\`, cookie, Accept-Language; else yours). The campaign must be public and active or ended (400 \`FUNDRAISER_NOT_PUBLIC\`). At most ${service.REQUESTS_PER_DAY} requests per campaign in 24 hours (429 with Retry-After).`,
      auth: 'required',
      limiters: ['authenticated'],
      policy: ownsCampaign,
      params: idParams,
      body: requestBody,
      status: 201,
      response: requestEnvelope,
      errors: [404],
      handler: async ({ ctx, req, res, actor, body }) => {
        try {
          return await service.requestEndorsement(ctx, actor, ownedCampaign(req), body.email, requestLocale(req));
        } catch (err) {
          if (err instanceof ApiError && err.status === 429) res.setHeader('Retry-After', String(err.extra.retryAfter));
          throw err;
        }
      },
    }),
  ],
  { tag: 'endorsements' },
);
