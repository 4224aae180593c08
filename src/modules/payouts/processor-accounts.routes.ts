import { defineRoutes, route } from '../../http/define-routes';
import { accountStatus, dashboardLink, managedAccounts, publicAccount, startOnboarding } from './accounts.service';
import { managedAccount, managesAccount, managesOrganizationPayouts, onboardingOrganization } from './payouts.policy';
import { accountAnswer, accountsAnswer, dashboardBody, linkAnswer, onboardingAnswer, onboardingBody, statusQuery } from './payouts.schemas';

export default defineRoutes(
  '/processor',
  [
    route({
      method: 'get',
      path: '/accounts',
      skipGlobalLimiter: true,
      summary: 'Your connected (payout) accounts',
      description: 'Your own account (if any), then the accounts of organizations where you hold org.manage_payouts.',
      auth: 'required',
      limiters: ['authenticated'],
      response: accountsAnswer,
      handler: async ({ db, actor }) => ({ data: (await managedAccounts(db, actor)).map(publicAccount) }),
    }),
    route({
      method: 'post',
      path: '/connect/onboarding',
      skipGlobalLimiter: true,
      summary: 'Start or resume Connect onboarding',
      description:
        'Creates your connected account once (repeated calls resume the same account) and answers a fresh onboarding link; the processor returns you to the site (`{site_url}/settings/payouts`). `organization_id` onboards that organization\'s account instead: it needs org.manage_payouts there (unknown organization 404 `Organization not found`, else 403 `Requires permission: org.manage_payouts`).',
      auth: 'required',
      limiters: ['authenticated'],
      policy: managesOrganizationPayouts,
      body: onboardingBody,
      response: onboardingAnswer,
      // A single-use bearer link into the account's onboarding; a fresh one is a new call away.
      secretFields: ['data.url'],
      errors: [403, 404],
      handler: async ({ req, ctx, actor }) => ({ data: await startOnboarding(ctx, actor, onboardingOrganization(req) ?? undefined) }),
    }),
    route({
      method: 'get',
      path: '/connect/status',
      skipGlobalLimiter: true,
      summary: 'A connected account\'s status',
      description:
        'One account row, first brought up to date from the processor. `account_id` defaults to your own account; an organization\'s account needs org.manage_payouts there; an account you cannot manage, or none, answers 404.',
      auth: 'required',
      limiters: ['authenticated'],
      policy: managesAccount(({ query }: { query: { account_id?: string } }) => query.account_id),
      query: statusQuery,
      response: accountAnswer,
      errors: [404],
      handler: async ({ req, ctx }) => ({ data: await accountStatus(ctx, managedAccount(req)) }),
    }),
    route({
      method: 'post',
      path: '/connect/dashboard-link',
      skipGlobalLimiter: true,
      summary: 'A link to the processor\'s dashboard for your account',
      description: '`account_id` defaults to your own account; an organization\'s account needs org.manage_payouts there; an account you cannot manage, or none, answers 404.',
      auth: 'required',
      limiters: ['authenticated'],
      policy: managesAccount(({ body }: { body: { account_id?: string } }) => body.account_id),
      body: dashboardBody,
      response: linkAnswer,
      // A single-use sign-in link to the payee's processor dashboard: a credential while it lives.
      secretFields: ['data.url'],
      errors: [404],
      handler: async ({ req, ctx }) => ({ data: await dashboardLink(ctx, managedAccount(req)) }),
    }),
  ],
  { tag: 'payouts' },
);
