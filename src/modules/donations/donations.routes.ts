import { defineRoutes, idParams, route } from '../../http/define-routes';
import { commentEnvelope } from '../comments';
import {
  checkoutAnswer,
  checkoutBody,
  intentAnswer,
  intentBody,
  noteBody,
  outcomeAnswer,
  receiptAnswer,
  receiptEmailAnswer,
  receiptEmailBody,
  receiptParams,
  recentAnswer,
  recentQuery,
} from './donations.schemas';
import { readOutcome } from './donations.outcome';
import * as service from './donations.service';
import * as receipts from './receipts.service';

const payingRules =
  'Amounts in integer cents of the campaign\'s currency: amount_cents 100 to 10,000,000, tip_cents 0 to 1,000,000. Only an active, non-deleted campaign the caller may read takes money, else 400 code FUNDRAISER_NOT_ACCEPTING_DONATIONS. ' +
  'A guest must give donor_email; a signed-in donor is attributed and receives the receipt at the account\'s address. ' +
  'When CAPTCHA is configured a guest must send a passing captchaToken or, from a native app, a valid one-time attestation in the `X-App-Attestation` header (an ES256/RS256 JWS signed by a key in APP_ATTESTATION_KEYS, `aud` = PUBLIC_URL, `sub`, `jti`, `iat` to `exp` at most 5 minutes; each `jti` is accepted once), else 403 `{ captchaFailed: true }`. ' +
  '`message` is plain text (markup removed). `ref` (optional) is the referral the donor came with: the paid gift is attributed to it (see POST /referrals/clicks). The gift stays pending until the processor\'s webhook settles it. A processor failure answers 502 (refused) or 503 (unreachable) and the gift is marked failed.';

export default defineRoutes(
  '',
  [
    route({
      method: 'post',
      path: '/payments/create-intent',
      summary: 'Start a gift with a PaymentIntent',
      description: `For clients that confirm the payment themselves (Stripe.js; with the sandbox processor POST /sandbox/payment-intents/{id}/confirm). ${payingRules}`,
      auth: 'optional',
      body: intentBody,
      status: 201,
      response: intentAnswer,
      errors: [502, 503],
      handler: async ({ req, ctx, actor, body }) => ({ data: await service.createIntent(ctx, req, actor, body) }),
    }),
    route({
      method: 'post',
      path: '/donations',
      summary: 'Start a gift with a hosted checkout',
      description: `Answers the Checkout Session's url. A signed-in caller needs a verified email (403 EMAIL_NOT_VERIFIED). success_url and cancel_url must be on SITE_URL's origin (400 otherwise); success_url defaults to {site_url}/fundraisers/{slug}?donation={donation_id}, cancel_url to the same with &canceled=true. ${payingRules}`,
      auth: 'optional',
      body: checkoutBody,
      status: 201,
      response: checkoutAnswer,
      errors: [502, 503],
      handler: async ({ req, ctx, actor, body }) => ({ data: await service.createCheckout(ctx, req, actor, body) }),
    }),
    route({
      method: 'get',
      path: '/donations/recent',
      skipGlobalLimiter: true,
      summary: 'Recent gifts',
      description:
        'Paid gifts to public, active or ended campaigns, newest first; optionally of one campaign (`fundraiser_id`; a campaign that is not public gives an empty list). `limit` 1 to 50 (default 10). `donor_name` is null for anonymous gifts; `created_at` is when the gift was paid.',
      auth: 'none',
      limiters: ['public'],
      query: recentQuery,
      response: recentAnswer,
      handler: async ({ ctx, query }) => ({ data: await receipts.recent(ctx, query.fundraiser_id, query.limit) }),
    }),
    route({
      method: 'get',
      path: '/donations/:id',
      skipGlobalLimiter: true,
      summary: 'A gift\'s outcome',
      description:
        'For the Checkout return page ({site_url}/fundraisers/{slug}?donation={id}, with &canceled=true when the donor canceled): the donation id is the capability, no sign-in needed. `status` is pending until the processor settles the gift (poll a few times), then paid (or failed, refunded); `receipt_id` is null until paid. Never carries an email, a name or a processor id. 404 for an unknown id.',
      auth: 'optional',
      limiters: ['public'],
      params: idParams,
      response: outcomeAnswer,
      handler: async ({ ctx, params }) => ({ data: await readOutcome(ctx, params.id) }),
    }),
    route({
      method: 'post',
      path: '/donations/receipt/email',
      summary: 'Email a gift\'s receipt',
      description:
        'Sends the receipt of a settled gift to any address (the receipt id is the capability). 404 for an unknown or unsettled receipt. The mail goes through the outbox: `status` is `queued` (the worker sends it within seconds and retries failures); `sent` is reserved for a synchronous send.',
      auth: 'none',
      limiters: ['strict'],
      body: receiptEmailBody,
      response: receiptEmailAnswer,
      handler: async ({ ctx, body }) => ({ data: await receipts.emailReceipt(ctx, body.receipt_id, body.email) }),
    }),
    route({
      method: 'get',
      path: '/donations/receipt/:receiptId',
      summary: 'A gift\'s receipt',
      description:
        'Public by its unguessable receipt id; 404 for an unknown or unsettled one. Never carries an email or a processor id; donor_name is null for anonymous gifts; `note` is the donor\'s live note.',
      auth: 'none',
      limiters: ['public'],
      params: receiptParams,
      response: receiptAnswer,
      handler: async ({ ctx, params }) => ({ data: await receipts.readReceipt(ctx, params.receiptId) }),
    }),
    route({
      method: 'post',
      path: '/donations/receipt/:receiptId/note',
      summary: 'Leave a note with your gift',
      description:
        'Posts the donor\'s note (1 to 500 characters, plain text: markup removed) as a comment on the campaign by the donor\'s account, tied to the gift; one note per gift (a second replaces the first). Only gifts made while signed in can carry a note (403 DONOR_ACCOUNT_REQUIRED for guest gifts: a comment needs an author). Deleting the comment (DELETE /comments/{id}) retracts the note: hidden, kept. 404 for an unknown or unsettled receipt.',
      auth: 'none',
      limiters: ['strict'],
      params: receiptParams,
      body: noteBody,
      status: 201,
      response: commentEnvelope,
      handler: async ({ ctx, params, body }) => ({ data: await receipts.postNote(ctx, params.receiptId, body.note) }),
    }),
  ],
  { tag: 'donations' },
);
