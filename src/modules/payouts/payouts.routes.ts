import { defineRoutes, route } from '../../http/define-routes';
import { defineLimiter, fixed, GENERIC, limitByKey, MINUTE } from '../../http/rate-limits';
import { earnings, pendingBreakdown } from './earnings.service';
import { managedAccount, managesAccount } from './payouts.policy';
import * as repo from './payouts.repo';
import { breakdownAnswer, earningsAnswer, payoutsAnswer, payoutsQuery, refreshAnswer, refreshBody } from './payouts.schemas';
import { refreshAccount } from './payouts.service';

/** Payout refreshes, per processor account: applied by the handler (limitByKey) once the account is known. */
export const payoutRefreshLimiter = defineLimiter('payoutRefresh', { windowMs: MINUTE, limit: fixed(1), key: 'account', message: GENERIC });

export default defineRoutes(
  '/payouts',
  [
    route({
      method: 'get',
      path: '/earnings',
      skipGlobalLimiter: true,
      summary: 'Your earnings across your campaigns',
      description:
        'Integer cents from the ledger over your own campaigns (in the currency most of them use): `total_cents` gross raised (gifts less refunds and disputes), `fees_cents` processor and platform fees, `available_cents` in your connected account not yet paid out, `withdrawn_cents` paid out, `pending_cents` the rest still owed. Without an active connected account: available 0, withdrawn 0, pending = total. Any `userId` query is ignored.',
      auth: 'required',
      limiters: ['authenticated'],
      response: earningsAnswer,
      handler: async ({ ctx, actor }) => ({ data: await earnings(ctx, actor) }),
    }),
    route({
      method: 'get',
      path: '/earnings/pending-breakdown',
      skipGlobalLimiter: true,
      summary: 'Pending earnings per campaign',
      description:
        'Campaigns with money not yet in your connected account. `available_on` (YYYY-MM-DD) is when the processor makes it available; null without an active connected account (it waits for onboarding).',
      auth: 'required',
      limiters: ['authenticated'],
      response: breakdownAnswer,
      handler: async ({ ctx, actor }) => ({ data: await pendingBreakdown(ctx, actor) }),
    }),
    route({
      method: 'get',
      path: '/',
      summary: 'Your payouts',
      description: 'Payouts of your connected account to your bank, newest first, paged `{ data, pagination }`.',
      auth: 'required',
      query: payoutsQuery,
      response: payoutsAnswer,
      handler: async ({ db, actor, query }) => {
        const accounts = await repo.accountsOf(db, 'user', actor.userId);
        const { rows, total } = await repo.payoutsOf(db, accounts.map((a) => a.id), query.limit, query.offset);
        return {
          data: rows.map((r: any) => ({ id: r.id, amount_cents: Number(r.amount_cents), currency: String(r.currency).toUpperCase(), status: r.status, arrival_date: r.arrival_date ?? null })),
          pagination: { limit: query.limit, offset: query.offset, total },
        };
      },
    }),
    route({
      method: 'post',
      path: '/refresh',
      summary: 'Refresh payouts from the processor',
      description:
        'Repairs the account\'s payout rows from the processor\'s list, the links between payouts and the gifts they paid out, and missing ledger entries; starts no new money movement. Transfers and reversals already decided but left unconfirmed (a processor timeout, a crash) are re-sent with their original idempotency key, so the processor answers what it did (or does it once) and they are recorded; `repaired.ledger_entries` counts their entries too. `accountId` defaults to your own account; another id is accepted only for an organization\'s account where you hold org.manage_payouts, else 404. One refresh per account per minute: 429 with `Retry-After` (counted on the account the request resolves to).',
      auth: 'required',
      policy: managesAccount(({ body }: { body: { accountId?: string } }) => body.accountId),
      body: refreshBody,
      response: refreshAnswer,
      errors: [404, 429],
      handler: async ({ ctx, req, res }) => {
        const account = managedAccount(req);
        if (!(await limitByKey(ctx, payoutRefreshLimiter, account.id, req, res))) return;
        return { data: { account_id: account.id, repaired: await refreshAccount(ctx, account) } };
      },
    }),
  ],
  { tag: 'payouts' },
);
