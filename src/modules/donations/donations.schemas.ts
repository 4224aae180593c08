import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { REF_PATTERN } from '../referrals';

export const AMOUNT_MIN = 100;
export const AMOUNT_MAX = 10_000_000;
export const TIP_MAX = 1_000_000;
export const MESSAGE_MAX = 500;
export const NOTE_MAX = 500;

const cents = (min: number, max: number) => z.number().int().min(min).max(max);

/** Body of POST /payments/create-intent; POST /donations takes the same plus return URLs. */
export const intentBody = z.object({
  fundraiser_id: uuid,
  amount_cents: cents(AMOUNT_MIN, AMOUNT_MAX).describe('The gift to the campaign, in the campaign\'s currency: 100 to 10,000,000 cents'),
  tip_cents: cents(0, TIP_MAX).optional().describe('A tip to the platform on top: 0 to 1,000,000 cents'),
  anonymous: z.boolean().optional().describe('Hide the donor\'s name on public reads'),
  message: z.string().max(MESSAGE_MAX).nullable().optional().describe('Plain text (markup is removed), at most 500 characters'),
  donor_name: z.string().max(100).nullable().optional(),
  donor_email: z.email().max(254).nullable().optional().describe('Required for guests; signed-in donors get receipts at their account address'),
  captchaToken: z.string().max(8192).optional().describe('Guests, when CAPTCHA is configured'),
  ref: z
    .string()
    .regex(REF_PATTERN, 'must be a profile slug or share code (letters, digits, - and _; at most 64)')
    .optional()
    .describe(
      "The referral the donor came with (the referrer's profile slug or a share code, as in POST /referrals/clicks). Once paid, the gift is attributed to it; without it, to the donor's last referral click on the campaign within 30 days. A donor's own link counts for no one.",
    ),
});

export const checkoutBody = intentBody.extend({
  success_url: z.string().max(2000).optional().describe('On SITE_URL\'s origin; default {site_url}/fundraisers/{slug}?donation={donation_id}'),
  cancel_url: z.string().max(2000).optional().describe('On SITE_URL\'s origin; default {site_url}/fundraisers/{slug}?donation={donation_id}&canceled=true'),
  interval: z
    .enum(['month'])
    .optional()
    .describe('`month`: a monthly gift (Checkout in subscription mode). The first payment and each renewal become one gift each; the tip, if any, rides along every month'),
});

export type IntentBody = z.infer<typeof intentBody>;
export type CheckoutBody = z.infer<typeof checkoutBody>;

export const intentAnswer = z.object({
  data: z.object({
    donation_id: uuid,
    payment_intent_id: z.string(),
    client_secret: z.string(),
    amount_cents: z.number().int(),
    tip_cents: z.number().int(),
    currency: z.string(),
    status: z.literal('pending'),
  }),
});

export const checkoutAnswer = z.object({
  data: z.object({
    donation_id: uuid,
    url: z.string(),
    status: z.literal('pending'),
    recurring_gift_id: uuid.optional().describe('A monthly gift only: the gift to manage under /me/recurring-gifts once its first payment settles'),
  }),
});

/** Receipt ids are 32 url-safe characters; anything else cannot name a receipt. */
export const receiptId = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be a receipt id');
export const receiptParams = z.object({ receiptId });

const fundraiserRef = z.object({ id: uuid, title: z.string(), slug: z.string() });

export const receiptAnswer = z.object({
  data: z.object({
    receipt_id: z.string(),
    donation_id: uuid,
    fundraiser: fundraiserRef,
    amount_cents: z.number().int(),
    tip_cents: z.number().int(),
    currency: z.string(),
    donor_name: z.string().nullable().describe('null for anonymous gifts'),
    paid_at: z.string(),
    note: z.string().nullable().describe('the donor\'s live note, if any'),
  }),
});

export const receiptEmailBody = z.object({ receipt_id: receiptId, email: z.email().max(254) });
export const receiptEmailAnswer = z.object({ data: z.object({ status: z.enum(['sent', 'queued']) }) });

export const noteBody = z.object({ note: z.string().min(1).max(NOTE_MAX).describe('1 to 500 characters of plain text') });

export const recentQuery = z.object({
  fundraiser_id: uuid.optional(),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});

export const recentAnswer = z.object({
  data: z.array(
    z.object({
      id: uuid,
      amount_cents: z.number().int(),
      currency: z.string(),
      donor_name: z.string().nullable(),
      message: z.string().nullable(),
      created_at: z.string().describe('when the gift was paid'),
      fundraiser: fundraiserRef,
    }),
  ),
});

export const outcomeAnswer = z.object({
  data: z.object({
    id: uuid,
    status: z.enum(['pending', 'paid', 'failed', 'refunded']),
    amount_cents: z.number().int(),
    tip_cents: z.number().int(),
    currency: z.string(),
    fundraiser: fundraiserRef,
    receipt_id: z.string().nullable().describe('null until the gift is paid; then GET /donations/receipt/{receipt_id} reads it'),
    recurring_gift_id: uuid.nullable().describe('The monthly gift this payment belongs to; null for a one-time gift'),
    created_at: z.string(),
    paid_at: z.string().nullable(),
  }).meta({ id: 'Donation', description: "A gift's outcome, as the return page reads it: never an email or a processor id" }),
});
