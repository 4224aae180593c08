import { z } from 'zod';

export const createTipBody = z.object({
  amount_cents: z.number().int().min(100).max(1_000_000).describe('100 to 1,000,000 (USD cents)'),
  cadence: z.enum(['one_time', 'recurring']).describe('`recurring` is a monthly subscription'),
  anonymous: z.boolean().optional(),
  email: z.email().max(254).optional().describe('Where the processor sends its receipt; defaults to the signed-in tipper\'s address'),
  captchaToken: z.string().max(8192).optional().describe('Required from guests when CAPTCHA is configured (403 `captchaFailed` otherwise)'),
});

export const createTipResponse = z.object({ data: z.object({ id: z.string(), url: z.string() }) });

export const tipReceipt = z.object({
  data: z.object({
    id: z.string(),
    amount_cents: z.number().int(),
    currency: z.literal('USD'),
    cadence: z.enum(['one_time', 'recurring']),
    status: z.enum(['pending', 'paid', 'failed', 'canceled', 'refunded']),
    created_at: z.string(),
    paid_at: z.string().nullable(),
    tipper_name: z.string().nullable(),
    subscription: z
      .object({ status: z.string().nullable(), current_period_end: z.string().nullable(), canceled_at: z.string().nullable() })
      .optional()
      .describe('Monthly tips only'),
  }),
}).meta({ id: 'TipReceipt' });

export const receiptEmailBody = z.object({ email: z.email().max(254) });
export const receiptEmailResponse = z.object({ data: z.object({ status: z.enum(['sent', 'queued']) }) });
