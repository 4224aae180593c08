import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';

export const DONATION_STATUSES = ['paid', 'refunded', 'failed', 'pending'] as const;
export type DonationStatus = (typeof DONATION_STATUSES)[number];

export const summaryAnswer = z
  .object({
    lifetimeAmountCents: z.number().int(),
    donationCount: z.number().int(),
    campaignsSupported: z.number().int(),
    firstDonationAt: z.string().nullable(),
    lastDonationAt: z.string().nullable(),
  })
  .describe('Bare object over the caller\'s paid gifts');

// `status` is checked by the service, so that a bad value answers the spec's `Invalid status` with `allowed`.
export const listQuery = z.object({
  status: z.string().max(100).optional().describe(`one of ${DONATION_STATUSES.join(', ')}`),
  fundraiser_id: uuid.optional(),
  limit: pageLimit(),
  offset: pageOffset(),
});

export const donationItem = z.object({
  id: uuid,
  fundraiser: z.object({ id: uuid, title: z.string(), slug: z.string() }),
  amount_cents: z.number().int(),
  tip_cents: z.number().int(),
  currency: z.string(),
  status: z.enum(DONATION_STATUSES),
  anonymous: z.boolean(),
  message: z.string().nullable(),
  receipt_id: z.string().nullable().describe('null until the gift is paid'),
  created_at: z.string(),
  paid_at: z.string().nullable(),
  refunded_at: z.string().nullable(),
  recurring_gift_id: uuid.nullable().describe('The monthly gift this payment belongs to (GET /me/recurring-gifts); null for a one-time gift'),
}).meta({ id: 'DonationHistoryItem' });

export const listAnswer = z.object({
  data: z.array(donationItem),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

export const FIRST_STATEMENT_YEAR = 2026;

export const statementQuery = z.object({
  year: z.coerce
    .number()
    .int()
    .refine((y) => y >= FIRST_STATEMENT_YEAR && y <= new Date().getUTCFullYear(), {
      message: `must be a year from ${FIRST_STATEMENT_YEAR} to the current year`,
    }),
  format: z.enum(['pdf', 'csv']).default('pdf'),
});
