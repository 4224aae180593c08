import { defineRoutes, route } from '../../http/define-routes';
import { accountStatus, dashboardLink, publicAccount, startOnboarding } from './accounts.service';
import * as repo from './payouts.repo';
import { accountAnswer, accountsAnswer, dashboardBody, linkAnswer, onboardingAnswer, onboardingBody, statusQuery } from './payouts.schemas';

export default defineRoutes(
  '/processor',
  [
    route({
      method: 'get',
      path: '/accounts',
      summary: 'Your connected (payout) accounts',
      description: 'Accounts you own or whose organization you manage payouts for (organizations come later: your own account, if any).',
      auth: 'required',
      limiters: ['authenticated'],
      response: accountsAnswer,
      handler: async ({ db, actor }) => ({ data: (await repo.accountsOf(db, 'user', actor!.userId)).map(publicAccount) }),
    }),
    route({
      method: 'post',
      path: '/connect/onboarding',
      summary: 'Start or resume Connect onboarding',
      description:
        'Creates your connected account once (repeated calls resume the same account) and answers a fresh onboarding link; the processor returns you to the site (`{site_url}/settings/payouts`). `organization_id` would onboard an organization you manage; organizations do not exist yet, so any id answers 404.',
      auth: 'required',
      limiters: ['authenticated'],
      body: onboardingBody,
      response: onboardingAnswer,
      errors: [404],
      handler: async ({ ctx, actor, body }) => ({ data: await startOnboarding(ctx, actor!, body.organization_id) }),
    }),
    route({
      method: 'get',
      path: '/connect/status',
      summary: 'A connected account\'s status',
      description:
        'One account row, first brought up to date from the processor. `account_id` defaults to your own account; an account you cannot manage, or none, answers 404.',
      auth: 'required',
      limiters: ['authenticated'],
      query: statusQuery,
      response: accountAnswer,
      errors: [404],
      handler: async ({ ctx, actor, query }) => ({ data: await accountStatus(ctx, actor!, query.account_id) }),
    }),
    route({
      method: 'post',
      path: '/connect/dashboard-link',
      summary: 'A link to the processor\'s dashboard for your account',
      description: '`account_id` defaults to your own account; an account you cannot manage, or none, answers 404.',
      auth: 'required',
      limiters: ['authenticated'],
      body: dashboardBody,
      response: linkAnswer,
      errors: [404],
      handler: async ({ ctx, actor, body }) => ({ data: await dashboardLink(ctx, actor!, body.account_id) }),
    }),
  ],
  { tag: 'payouts' },
);
