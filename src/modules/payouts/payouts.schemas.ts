import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';

/** A processor (connected) account id: Stripe's `acct_...` (the sandbox's too). */
export const accountId = z.string().regex(/^acct_[A-Za-z0-9_]{1,200}$/, 'must be a processor account id (acct_...)');

const cents = z.number().int();
const date = z.string().describe('YYYY-MM-DD');

export const accountRow = z.object({
  id: z.string(),
  owner_type: z.enum(['user', 'organization']),
  owner_id: uuid,
  charges_enabled: z.boolean(),
  payouts_enabled: z.boolean(),
  details_submitted: z.boolean(),
  status: z.enum(['onboarding', 'active', 'restricted']),
  created_at: z.string(),
}).meta({ id: 'ProcessorAccount' });

export const accountsAnswer = z.object({ data: z.array(accountRow) });
export const accountAnswer = z.object({ data: accountRow });
export const onboardingBody = z.object({ organization_id: uuid.optional() });
export const onboardingAnswer = z.object({ data: z.object({ account_id: z.string(), url: z.string() }) });
export const statusQuery = z.object({ account_id: accountId.optional() });
export const dashboardBody = z.object({ account_id: accountId.optional() });
export const linkAnswer = z.object({ data: z.object({ url: z.string() }) });

export const earningsAnswer = z.object({
  data: z.object({
    total_cents: cents,
    fees_cents: cents,
    available_cents: cents,
    pending_cents: cents,
    withdrawn_cents: cents,
    currency: z.string(),
  }),
});

export const breakdownAnswer = z.object({
  data: z.array(z.object({ fundraiser_id: uuid, title: z.string(), pending_cents: cents, available_on: date.nullable() })),
});

export const payoutsQuery = z.object({ limit: pageLimit(), offset: pageOffset() });
export const payoutsAnswer = z.object({
  data: z.array(
    z.object({ id: uuid, amount_cents: cents, currency: z.string(), status: z.enum(['pending', 'in_transit', 'paid', 'failed']), arrival_date: date.nullable() }).meta({ id: 'Payout' }),
  ),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

export const refreshBody = z.object({ accountId: accountId.optional() });
export const refreshAnswer = z.object({
  data: z.object({
    account_id: z.string(),
    repaired: z.object({ payouts: z.number().int(), donations: z.number().int(), ledger_entries: z.number().int() }),
  }),
});
