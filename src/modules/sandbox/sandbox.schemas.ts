import { z } from 'zod';

/** Sandbox object ids (cs_sb_..., pi_sb_..., acct_sb_...), also whatever Stripe-like id a test makes. */
export const objectIdParams = z.object({ id: z.string().min(3).max(100).regex(/^[A-Za-z0-9_]+$/, 'must be a processor object id') });

/** The hosted forms post no fields; anything sent is ignored. */
export const emptyForm = z.object({}).passthrough();

export const connectQuery = z.object({ return_url: z.string().max(2048).optional() });

export const confirmBody = z.object({ outcome: z.enum(['succeeded', 'failed']) });
export const confirmResponse = z.object({
  data: z.object({ id: z.string(), status: z.string(), webhook_delivered: z.boolean() }),
});

export const refundBody = z.object({ amount_cents: z.number().int().min(1).max(100_000_000).optional() });
export const refundResponse = z.object({
  data: z.object({ id: z.string(), refund_id: z.string(), amount_refunded_cents: z.number().int(), webhook_delivered: z.boolean() }),
});

/** A subscription's id, or the uuid of the row its metadata names (a monthly gift). */
export const subscriptionParams = z.object({ id: z.string().min(3).max(100).regex(/^[A-Za-z0-9_-]+$/, 'must be a subscription id or a monthly gift id') });

/** Up to five years at once. */
export const advanceBody = z.object({ seconds: z.number().int().min(1).max(5 * 366 * 86_400).describe('How far to move the sandbox clock: 1 second to 5 years') });
export const advanceResponse = z.object({
  data: z.object({
    now: z.string().describe("The sandbox clock's time after the move"),
    offset_seconds: z.number().int().describe('How far ahead of real time the sandbox clock now is'),
    renewals: z.object({
      charged: z.number().int(),
      declined: z.number().int(),
      canceled: z.number().int().describe("Subscriptions canceled after the processor's last retry"),
      skipped: z.number().int().describe('Periods of paused subscriptions (nothing collected)'),
    }),
    webhook_delivered: z.boolean(),
  }),
});

export const failNextBody = z
  .object({
    count: z.number().int().min(1).max(10).default(1).describe("How many charge attempts in a row decline (default 1; 4 declines through the processor's last retry, which cancels the subscription)"),
  })
  .default({ count: 1 });
export const failNextResponse = z.object({ data: z.object({ subscription_id: z.string(), declines_pending: z.number().int() }) });
