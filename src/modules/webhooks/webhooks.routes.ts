import type { Request } from 'express';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { recordStripeEvent } from '../../infra/metrics';
import { ApiError } from '../../http/errors';
import { processorStoreUnavailable, processorUnreachable, WebhookPayloadError, type PaymentEvent } from '../../integrations/payments';
import { recordUnreadable } from './webhooks.repo';
import { processEvent } from './webhooks.service';
import type { WebhookHandlerMap } from './webhooks.types';

const received = z.object({ received: z.literal(true) });

/**
 * The processor webhook's route table, over the handler map src/modules/index.ts collects from
 * every module's `webhookHandlers`: passed in, so this module never imports the money modules
 * whose handlers it runs (they import its handler types).
 */
export function webhookRoutes(webhookHandlers: WebhookHandlerMap) {
  return defineRoutes(
    '/webhooks',
    [
      route({
        method: 'post',
        path: '/stripe',
        skipGlobalLimiter: true,
        summary: 'Payment processor webhook',
        description:
          'Stripe (or the sandbox processor) delivers events here. The raw body is checked against the `Stripe-Signature` header (400 when missing or bad). Each event id takes effect once, in any order; handled and ignored types answer 200 `{ received: true }`; a signed event whose envelope or object cannot be read (no `data.object`, not an object, no id or type) answers 400 `{ error: \'Invalid event\', code: \'INVALID_EVENT\' }` and is logged once; a processing failure (the database unavailable, or the processor itself unreachable when the event needs to ask it, e.g. for the fee) answers 503 with `Retry-After` so the processor retries.',
        auth: 'none',
        rawBody: true,
        consumes: { mediaType: 'application/json', schema: z.object({ id: z.string(), type: z.string() }).passthrough() },
        response: received,
        errors: [400, 503],
        handler: async ({ req, ctx }) => {
          const raw = (req as Request & { rawBody?: Buffer }).rawBody;
          const sig = req.header('stripe-signature');
          let event: PaymentEvent;
          try {
            event = await ctx.payments.parseWebhook(raw ?? '', sig);
          } catch (err) {
            if (!(err instanceof WebhookPayloadError)) throw new ApiError(400, 'Invalid signature', 'The webhook signature is missing or does not match');
            // Signed, so the processor really sent it: a retry would bring the same body, so it is
            // refused (never a 500 retried for days) and logged once per event id.
            if (!err.eventId || (await recordUnreadable(ctx.db, err.eventId, err.processorType))) {
              ctx.log.warn({ eventId: err.eventId, type: err.processorType, reason: err.message, requestId: (req as { id?: unknown }).id }, 'processor event unreadable; refused');
            }
            recordStripeEvent(err.processorType ?? 'unknown', 'failed');
            throw new ApiError(400, 'Invalid event', err.message, { code: 'INVALID_EVENT' });
          }
          let outcome;
          try {
            outcome = await processEvent(ctx, webhookHandlers, event);
          } catch (err) {
            recordStripeEvent(event.processor_type, 'failed');
            throw processorUnreachable(err) && !processorStoreUnavailable(err) ? processorUnavailable(req, event.id, err) : err;
          }
          recordStripeEvent(event.processor_type, outcome === 'applied' ? 'processed' : outcome);
          // The request's child logger is built on first use: not for a line the level drops.
          if (ctx.log.isLevelEnabled('info')) req.log?.info({ eventId: event.id, type: event.processor_type, kind: event.kind, outcome }, 'processor event');
          return { received: true as const };
        },
      }),
    ],
    { tag: 'webhooks' },
  );
}

/**
 * A verified event whose processing had to ask the processor, and could not reach it: 503 with
 * Retry-After, so the processor delivers it again (nothing was recorded; the event is not lost).
 */
function processorUnavailable(req: Request, eventId: string, err: unknown): ApiError {
  req.log?.warn({ eventId, err: (err as Error)?.message }, 'processor unreachable while handling an event');
  return new ApiError(503, 'Payment processor unavailable', 'The event could not be processed now; it will be delivered again', {
    code: 'PROCESSOR_UNAVAILABLE',
    retryAfter: 30,
  });
}
