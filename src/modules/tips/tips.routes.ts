import { ATTESTATION_HEADER } from '../../http/guest-check';
import { defineRoutes, idParams, route } from '../../http/define-routes';
import { clientIp } from '../../http/client-ip';
import { requestLocale } from '../../integrations/mail';
import { createTipBody, createTipResponse, receiptEmailBody, receiptEmailResponse, tipReceipt } from './tips.schemas';
import { createTip, emailTipReceipt, tipReceipt as readReceipt, RECEIPT_EMAIL_MAX } from './tips.service';

export default defineRoutes(
  '/platform/tips',
  [
    route({
      method: 'post',
      path: '/',
      status: 201,
      summary: 'Start a tip to the platform (one-time or monthly)',
      description:
        'Creates a pending tip and a checkout session (a monthly subscription for `recurring`); pay at `url`, then the payer returns to `{site_url}/tip/{id}`. The processor webhook settles it. A signed-in tipper is named on the receipt unless `anonymous`. Guests send `captchaToken` when CAPTCHA is configured, or from a native app a valid one-time `X-App-Attestation` (as for POST /donations); 403 `captchaFailed` otherwise.',
      auth: 'optional',
      limiters: ['auth'],
      body: createTipBody,
      response: createTipResponse,
      errors: [503],
      handler: async ({ ctx, req, actor, body }) => ({ data: await createTip(ctx, actor, body, { ip: clientIp(req), locale: requestLocale(req), attestation: req.header(ATTESTATION_HEADER) }) }),
    }),
    route({
      method: 'get',
      path: '/:id',
      summary: 'A tip receipt (public: the tip id is the capability)',
      description: 'A tip that has not settled answers 200 with `status: pending`. Never carries an email or a processor id.',
      auth: 'none',
      limiters: ['public'],
      params: idParams,
      response: tipReceipt,
      handler: ({ ctx, params }) => readReceipt(ctx, params.id),
    }),
    route({
      method: 'post',
      path: '/:id/receipt/email',
      summary: "Email a paid tip's receipt to any address",
      description: `At most ${RECEIPT_EMAIL_MAX} sends per tip: the next ones answer 429 \`Receipt email limit reached for this tip\` (code \`RECEIPT_EMAIL_LIMIT\`) for good (no Retry-After, no retryAfter). A missing or unpaid tip answers 404. \`status\` says whether the mail went out at once or is queued.`,
      auth: 'optional',
      limiters: ['strict'],
      params: idParams,
      body: receiptEmailBody,
      response: receiptEmailResponse,
      handler: async ({ ctx, req, params, body }) => ({ data: await emailTipReceipt(ctx, params.id, body.email, requestLocale(req)) }),
    }),
  ],
  { tag: 'tips' },
);
