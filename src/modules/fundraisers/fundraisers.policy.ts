import type { Request } from 'express';
import { notFound } from '../../http/errors';
import { policyResult, type SignedInPolicy } from '../../http/policy-result';
import * as repo from './fundraisers.repo';
import type { FundraiserRow } from './fundraisers.repo';

const owned = policyResult<FundraiserRow>('ownsFundraiser');

/**
 * Owner-only campaign writes. Anyone else, and deleted campaigns, get the same 404 as an
 * unknown id, so the answer never tells a stranger that the campaign exists.
 */
export const ownsFundraiser: SignedInPolicy<{ id: string }> = {
  describe: 'the caller owns the campaign (anyone else, and deleted campaigns, 404)',
  async check({ req, ctx, actor, params }) {
    const row = await repo.findById(ctx.db, params.id);
    if (!row || row.deleted_at || row.owner_user_id !== actor.userId) throw notFound('Fundraiser');
    owned.set(req, row);
  },
};

/** The campaign `ownsFundraiser` loaded for this request. */
export const ownedFundraiser = (req: Request): FundraiserRow => owned.get(req);
