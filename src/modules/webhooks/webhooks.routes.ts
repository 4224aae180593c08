import type { Request } from 'express';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { webhookHandlers } from './handlers';
import { processEvent } from './webhooks.service';

const received = z.object({ received: z.literal(true) });

export default defineRoutes(
  '/webhooks',
  [
    route({
      method: 'post',
      path: '/stripe',
      summary: 'Payment processor webhook',
      description:
        'Stripe (or the sandbox processor) delivers events here. The raw body is checked against the `Stripe-Signature` header (400 when missing or bad). Each event id takes effect once, in any order; handled and ignored types answer 200 `{ received: true }`; a processing failure answers 500 so the processor retries.',
      auth: 'none',
      rawBody: true,
      consumes: { mediaType: 'application/json', schema: z.object({ id: z.string(), type: z.string() }).passthrough() },
      response: received,
      handler: async ({ req, ctx }) => {
        const raw = (req as Request & { rawBody?: Buffer }).rawBody;
        const sig = req.header('stripe-signature');
        let event;
        try {
          event = await ctx.payments.parseWebhook(raw ?? '', sig);
        } catch {
          throw new ApiError(400, 'Invalid signature', 'The webhook signature is missing or does not match');
        }
        const outcome = await processEvent(ctx, webhookHandlers, event);
        req.log?.info({ eventId: event.id, type: event.type, outcome }, 'processor event');
        return { received: true as const };
      },
    }),
  ],
  { tag: 'webhooks' },
);
