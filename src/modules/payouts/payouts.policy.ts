import type { Request } from 'express';
import type { RoutePolicy } from '../../http/define-routes';
import { policyResult, type SignedIn } from '../../http/policy-result';
import { requireOrgPermissionById } from '../organizations';
import { resolveAccount } from './accounts.service';
import type { AccountRow } from './payouts.repo';

const managed = policyResult<AccountRow>('managesAccount');

/**
 * Routes that act on one connected account: the caller's own by default, or an organization's
 * the caller manages payouts for. Any other id, or no account at all, is 404. `pick` names the
 * request field that may carry the id.
 */
export function managesAccount<Q, B>(pick: (args: { query: Q; body: B }) => string | undefined): RoutePolicy<unknown, Q, B, SignedIn> {
  return {
    describe: "the account is the caller's own, or an organization's where the caller holds org.manage_payouts (any other id, or no account yet, 404)",
    async check(args) {
      managed.set(args.req, await resolveAccount(args.ctx.db, args.actor, pick(args)));
    },
  };
}

/** The account `managesAccount` resolved for this request. */
export const managedAccount = (req: Request): AccountRow => managed.get(req);

const onboardingOrg = policyResult<{ orgId: string | null }>('managesOrganizationPayouts');

/**
 * Onboarding for an organization needs org.manage_payouts there: an unknown organization is 404
 * `Organization not found`, a member without it 403 `Requires permission: org.manage_payouts`.
 */
export const managesOrganizationPayouts: RoutePolicy<unknown, unknown, { organization_id?: string }, SignedIn> = {
  describe: 'with organization_id, the caller holds org.manage_payouts in that organization (unknown 404 Organization not found, else 403)',
  async check({ req, ctx, actor, body }) {
    if (body.organization_id === undefined) return onboardingOrg.set(req, { orgId: null });
    const org = await requireOrgPermissionById(ctx.db, actor, body.organization_id, 'org.manage_payouts');
    onboardingOrg.set(req, { orgId: org.id });
  },
};

/** The organization `managesOrganizationPayouts` resolved (null: the caller's own account). */
export const onboardingOrganization = (req: Request): string | null => onboardingOrg.get(req).orgId;
