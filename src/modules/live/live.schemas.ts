import { z } from 'zod';
import { uuid } from '../../http/define-routes';

export const progressData = z
  .object({
    total_raised_cents: z.number().int(),
    donation_count: z.number().int(),
    donor_count: z.number().int().describe('distinct donors'),
    goal_amount_cents: z.number().int(),
    percentage_funded: z.number(),
    recurring_donor_count: z.number().int(),
  })
  .meta({ id: 'LiveProgress', description: 'The campaign\'s figures, as its stats read shows them' });

export const donationData = z
  .object({
    id: uuid,
    amount_cents: z.number().int(),
    currency: z.string(),
    donor_name: z.string().nullable().describe('null for an anonymous gift (the donor list\'s rules)'),
    created_at: z.string().describe('when the gift was paid'),
  })
  .meta({ id: 'LiveDonation', description: 'A settled gift, with what the public donor list shows of it (never an email or a person\'s id)' });

export const closedData = z
  .object({ reason: z.enum(['ended', 'unavailable']).describe('ended: the campaign ended; unavailable: the caller may no longer read it') })
  .meta({ id: 'LiveClosed' });

/**
 * The stream as the OpenAPI document shows it: each server-sent event (`event:` name, `id:` where
 * it has one, `data:` one line of JSON). Validators check JSON bodies only; this is for readers
 * and generated clients.
 */
export const liveStream = z
  .union([
    z.object({ event: z.literal('progress'), data: progressData }),
    z.object({ event: z.literal('donation'), id: z.string().regex(/^\d+$/).describe('the cursor: grows with every gift; send it back as Last-Event-ID'), data: donationData }),
    z.object({ event: z.literal('closed'), data: closedData }),
  ])
  .meta({
    id: 'LiveEvent',
    description:
      'One server-sent event of the stream (text/event-stream: `id:`, `event:` and `data:` lines, a blank line after each). Several may arrive in one read. Lines starting with `:` are comments sent every 15 s to keep proxies from closing the stream.',
  });
