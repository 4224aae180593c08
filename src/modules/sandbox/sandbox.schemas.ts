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
