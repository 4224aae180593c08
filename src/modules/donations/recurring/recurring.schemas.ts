import { z } from 'zod';
import { uuid } from '../../../http/define-routes';
import { AMOUNT_MAX, AMOUNT_MIN, TIP_MAX } from '../donations.schemas';

export const recurringGift = z
  .object({
    id: uuid,
    fundraiser: z.object({ id: uuid, title: z.string(), slug: z.string() }),
    amount_cents: z.number().int().describe("The campaign's part of each monthly payment"),
    tip_cents: z.number().int().describe('The tip to the platform riding along each month'),
    currency: z.string(),
    interval: z.literal('month'),
    status: z.enum(['active', 'paused', 'past_due', 'canceled']),
    next_payment_at: z.string().nullable().describe('When the next payment is due (null once canceled)'),
    started_at: z.string().nullable(),
    canceled_at: z.string().nullable(),
  })
  .meta({ id: 'RecurringGift', description: 'A monthly gift to a campaign; each payment is a gift of its own (GET /me/donations, recurring_gift_id)' });

export const giftEnvelope = z.object({ data: recurringGift });
export const giftList = z.object({ data: z.array(recurringGift) });

export const changeBody = z
  .object({
    amount_cents: z.number().int().min(AMOUNT_MIN).max(AMOUNT_MAX).optional().describe('100 to 10,000,000 cents'),
    tip_cents: z.number().int().min(0).max(TIP_MAX).optional().describe('0 to 1,000,000 cents'),
    paused: z.boolean().optional().describe('true pauses the payments until set back to false'),
  })
  .refine((b) => b.amount_cents !== undefined || b.tip_cents !== undefined || b.paused !== undefined, { message: 'give amount_cents, tip_cents or paused' });

export const cancelBody = z.object({ reason: z.string().trim().max(500).optional().describe('Why the donor stops (kept with the gift, at most 500 characters)') }).optional();

/** The signed link's token, as each mail of the gift carries it. */
export const tokenQuery = z.object({ token: z.string().min(10).max(1024) });

export type ChangeBody = z.infer<typeof changeBody>;
