import { defineRoutes, route } from '../../http/define-routes';
import { sandboxActions } from '../../integrations/payments';
import { checkoutPage, connectPage, pageCsp } from './sandbox.pages';
import { advanceClock, checkoutSession, connectedAccount, failNext, onboardingReturnUrl, runAndDeliver } from './sandbox.service';
import {
  advanceBody,
  advanceResponse,
  confirmBody,
  confirmResponse,
  connectQuery,
  emptyForm,
  failNextBody,
  failNextResponse,
  objectIdParams,
  refundBody,
  refundResponse,
  subscriptionParams,
} from './sandbox.schemas';

const FORM = { mediaType: 'application/x-www-form-urlencoded', schema: emptyForm };
const DELIVERY_NOTE =
  'A correctly signed event is delivered over HTTP to the webhook route (SANDBOX_WEBHOOK_URL) before the answer; when it gets no 2xx after a few tries the answer still comes and a job redelivers it.';

type Id = { id: string };

/** The sandbox processor's hosted pages and test controls; mounted only while STRIPE_SECRET_KEY is unset. */
export default defineRoutes(
  '/sandbox',
  [
    route<Id>({
      method: 'get',
      path: '/checkout/:id',
      summary: 'Sandbox hosted checkout page',
      description: 'What the session charges (line items, amount, currency, mode) and two forms: complete and cancel.',
      auth: 'none',
      limiters: ['public'],
      params: objectIdParams,
      produces: 'text/html',
      errors: [404],
      handler: async ({ ctx, params, res }) => {
        const s = await checkoutSession(ctx, params.id);
        res.setHeader('Content-Security-Policy', pageCsp([s.success_url, s.cancel_url]));
        res.setHeader('Cache-Control', 'no-store');
        res.type('html').send(checkoutPage(s));
      },
    }),
    route<Id, Record<string, never>, Record<string, unknown>>({
      method: 'post',
      path: '/checkout/:id/complete',
      summary: 'Sandbox checkout: pay',
      description: `Completes the session as its mode says (payment: a succeeded PaymentIntent and charge, \`checkout.session.completed\` and \`payment_intent.succeeded\`; subscription: an active subscription, \`checkout.session.completed\` and \`invoice.paid\`; setup: a succeeded SetupIntent and \`checkout.session.completed\`), then 303 to the success URL. A session already paid answers the same 303 and charges nothing (a double-clicked button); an expired one 409. ${DELIVERY_NOTE}`,
      auth: 'none',
      limiters: ['public'],
      params: objectIdParams,
      consumes: FORM,
      status: 303,
      errors: [404, 409],
      handler: async ({ ctx, params, res }) => {
        const out = await runAndDeliver(ctx, () => sandboxActions.completeCheckout(ctx.db, params.id));
        res.redirect(303, out.redirect);
      },
    }),
    route<Id, Record<string, never>, Record<string, unknown>>({
      method: 'post',
      path: '/checkout/:id/cancel',
      summary: 'Sandbox checkout: cancel',
      description: `Expires the session (\`checkout.session.expired\`), then 303 to the cancel URL (again on an expired session; 409 on a paid one). ${DELIVERY_NOTE}`,
      auth: 'none',
      limiters: ['public'],
      params: objectIdParams,
      consumes: FORM,
      status: 303,
      errors: [404, 409],
      handler: async ({ ctx, params, res }) => {
        const out = await runAndDeliver(ctx, () => sandboxActions.cancelCheckout(ctx.db, params.id));
        res.redirect(303, out.redirect);
      },
    }),
    route<Id, Record<string, never>, { outcome: 'succeeded' | 'failed' }>({
      method: 'post',
      path: '/payment-intents/:id/confirm',
      summary: 'Sandbox: confirm a PaymentIntent (stands in for Stripe.js)',
      description: `\`succeeded\` charges it (\`payment_intent.succeeded\` with \`latest_charge\`, \`amount_received\`); \`failed\` declines the card (\`payment_intent.payment_failed\`; it may be confirmed again). The intent of a subscription's first invoice also pays the invoice (\`invoice.paid\`, or \`invoice.payment_failed\`). 409 once succeeded or canceled. ${DELIVERY_NOTE}`,
      auth: 'none',
      limiters: ['public'],
      params: objectIdParams,
      body: confirmBody,
      response: confirmResponse,
      errors: [404, 409],
      handler: async ({ ctx, params, body }) => {
        const out = await runAndDeliver(ctx, () => sandboxActions.confirmPaymentIntent(ctx.db, params.id, body.outcome));
        return { data: { id: out.id, status: out.status, webhook_delivered: out.delivered } };
      },
    }),
    route<Id, Record<string, never>, { outcome: 'succeeded' | 'failed' }>({
      method: 'post',
      path: '/setup-intents/:id/confirm',
      summary: 'Sandbox: confirm a SetupIntent (stands in for Stripe.js saving a card)',
      description: `\`succeeded\` saves a card on the SetupIntent's customer (\`setup_intent.succeeded\` with \`payment_method\`); \`failed\` refuses it (\`setup_intent.setup_failed\`; it may be confirmed again). 409 once succeeded. ${DELIVERY_NOTE}`,
      auth: 'none',
      limiters: ['public'],
      params: objectIdParams,
      body: confirmBody,
      response: confirmResponse,
      errors: [404, 409],
      handler: async ({ ctx, params, body }) => {
        const out = await runAndDeliver(ctx, () => sandboxActions.confirmSetupIntent(ctx.db, params.id, body.outcome));
        return { data: { id: out.id, status: out.status, webhook_delivered: out.delivered } };
      },
    }),
    route<Id, Record<string, never>, { amount_cents?: number }>({
      method: 'post',
      path: '/payment-intents/:id/refund',
      summary: 'Sandbox: refund a succeeded PaymentIntent',
      description: `Refunds \`amount_cents\` (default: all that is left) and delivers \`charge.refunded\` (the charge with the cumulative \`amount_refunded\` and its \`refunds\`). ${DELIVERY_NOTE}`,
      auth: 'none',
      limiters: ['public'],
      params: objectIdParams,
      body: refundBody,
      response: refundResponse,
      errors: [404, 409],
      handler: async ({ ctx, params, body }) => {
        const out = await runAndDeliver(ctx, () => sandboxActions.refundPaymentIntent(ctx.db, params.id, body.amount_cents));
        return { data: { id: out.id, refund_id: out.refund_id, amount_refunded_cents: out.amount_refunded, webhook_delivered: out.delivered } };
      },
    }),
    route<Record<string, never>, Record<string, never>, { seconds: number }>({
      method: 'post',
      path: '/clock/advance',
      summary: "Sandbox: move the sandbox's clock forward",
      description:
        "Moves the sandbox clock `seconds` ahead (it never goes back). Every subscription renewal it reaches is charged, oldest first, and its events delivered before the next: `invoice.paid` and `customer.subscription.updated`; a declined attempt (see fail-next) `invoice.payment_failed` (retried 3, 5 and 7 days later) and `customer.subscription.updated` (past_due); the 4th decline is the processor's last retry: `customer.subscription.deleted`. A paused subscription collects nothing. Advancing a year renews a monthly gift 12 times. Answers what was renewed. " +
        DELIVERY_NOTE,
      auth: 'none',
      limiters: ['public'],
      body: advanceBody,
      response: advanceResponse,
      handler: async ({ ctx, body }) => ({ data: await advanceClock(ctx, body.seconds) }),
    }),
    route<Id, Record<string, never>, { count: number }>({
      method: 'post',
      path: '/subscriptions/:id/fail-next',
      summary: 'Sandbox: make the next renewal decline',
      description:
        "The next `count` charge attempts of the subscription decline (default 1: the renewal fails once and the retry succeeds). `id` is the processor subscription's id or the monthly gift's id (as GET /me/recurring-gifts lists it). 404 for an unknown one, 409 for a canceled one.",
      auth: 'none',
      limiters: ['public'],
      params: subscriptionParams,
      body: failNextBody,
      response: failNextResponse,
      errors: [404, 409],
      handler: async ({ ctx, params, body }) => ({ data: await failNext(ctx, params.id, body.count) }),
    }),
    route<Id, { return_url?: string }>({
      method: 'get',
      path: '/connect/:id',
      summary: 'Sandbox Connect onboarding page',
      description: 'A form that completes onboarding of the connected account; `return_url` (on the site\'s origin, else the site\'s home) is where it returns.',
      auth: 'none',
      limiters: ['public'],
      params: objectIdParams,
      query: connectQuery,
      produces: 'text/html',
      errors: [404],
      handler: async ({ ctx, params, query, res }) => {
        const account = await connectedAccount(ctx, params.id);
        const back = onboardingReturnUrl(ctx.config.SITE_URL, query.return_url);
        res.setHeader('Content-Security-Policy', pageCsp([back]));
        res.setHeader('Cache-Control', 'no-store');
        res.type('html').send(connectPage(account, back));
      },
    }),
    route<Id, { return_url?: string }, Record<string, unknown>>({
      method: 'post',
      path: '/connect/:id/complete',
      summary: 'Sandbox Connect onboarding: complete',
      description: `Enables charges and payouts, marks details submitted, delivers \`account.updated\` (a Connect event: \`account\` is the account id), then 303 to \`return_url\`. ${DELIVERY_NOTE}`,
      auth: 'none',
      limiters: ['public'],
      params: objectIdParams,
      query: connectQuery,
      consumes: FORM,
      status: 303,
      errors: [404],
      handler: async ({ ctx, params, query, res }) => {
        await runAndDeliver(ctx, () => sandboxActions.completeOnboarding(ctx.db, params.id));
        res.redirect(303, onboardingReturnUrl(ctx.config.SITE_URL, query.return_url));
      },
    }),
  ],
  { tag: 'sandbox', root: true },
);
