import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { runOf } from './reconciliation.repo';
import { runView, yesterdayUtc } from './reconcile.service';

const staff = { role: 'staff' } as const;

const side = (ids: string) => z.object({ [ids]: z.array(z.string()), amount_cents: z.number().int(), currency: z.string() });

const difference = z.object({
  kind: z.enum(['missing_in_ledger', 'missing_at_processor', 'amount_differs', 'currency_differs']),
  ref: z.string().nullable().describe('the processor id both sides name: a PaymentIntent (charges, refunds, disputes), a transfer, reversal or payout'),
  move: z.string().describe('charge, refund, dispute, transfer, transfer_reversal, payout, fee or other'),
  processor: side('ids').nullable().describe('the balance transactions (net amount, fees inside)'),
  ledger: side('group_ids').nullable().describe('the ledger groups (what they moved on the processor balance)'),
});

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'day must be YYYY-MM-DD')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'day is not a calendar date');

export default defineRoutes(
  '/admin',
  [
    route({
      method: 'get',
      path: '/reconciliation',
      summary: "A day's reconciliation with the payment processor (staff)",
      description:
        "The day's last run (`npm run admin -- reconcile`, or the worker's daily job at 02:30 UTC for the day before): every processor balance transaction of the UTC day against the ledger and back. `status` is clean, differences, or failed (the processor could not be listed). `day` defaults to yesterday (UTC); 404 when that day has not been reconciled.",
      auth: staff,
      query: z.object({ day: day.optional() }),
      response: z.object({
        data: z.object({
          day: z.string(),
          status: z.enum(['clean', 'differences', 'failed']),
          checked: z.object({ processor: z.number().int(), ledger: z.number().int() }),
          differences: z.array(difference),
          ran_at: z.string(),
        }),
      }),
      errors: [404],
      handler: async ({ ctx, query }) => {
        const d = query.day ?? yesterdayUtc();
        const run = await runOf(ctx.db, d);
        if (!run) throw new ApiError(404, 'Not found', `No reconciliation run for ${d}`);
        return { data: runView(run) };
      },
    }),
  ],
  { tag: 'admin' },
);
