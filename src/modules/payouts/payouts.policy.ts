import type { Request } from 'express';
import { ApiError } from '../../http/errors';
import type { RoutePolicy } from '../../http/define-routes';
import { policyResult, type SignedIn } from '../../http/policy-result';
import { resolveAccount } from './accounts.service';
import type { AccountRow } from './payouts.repo';

const managed = policyResult<AccountRow>('managesAccount');

/**
 * Routes that act on one connected account: the caller's own by default. Another id (an
 * organization's, once organizations exist), or no account at all, is 404. `pick` names the
 * request field that may carry the id.
 */
export function managesAccount<Q, B>(pick: (args: { query: Q; body: B }) => string | undefined): RoutePolicy<unknown, Q, B, SignedIn> {
  return {
    describe: "the account is the caller's own (another account id, or no account yet, 404)",
    async check(args) {
      managed.set(args.req, await resolveAccount(args.ctx.db, args.actor, pick(args)));
    },
  };
}

/** The account `managesAccount` resolved for this request. */
export const managedAccount = (req: Request): AccountRow => managed.get(req);

/** Onboarding for an organization needs its payout permission; no organizations exist yet, so any id is 404. */
export const managesOrganizationPayouts: RoutePolicy<unknown, unknown, { organization_id?: string }, SignedIn> = {
  describe: 'with organization_id, the caller manages payouts for that organization (none exist yet: any id 404)',
  check({ body }) {
    if (body.organization_id !== undefined) throw new ApiError(404, 'Not found', 'Organization not found');
  },
};
