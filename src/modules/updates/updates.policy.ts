import type { Request } from 'express';
import { notFound } from '../../http/errors';
import { policyResult, type SignedInPolicy } from '../../http/policy-result';
import { findById, type FundraiserRow } from '../fundraisers';

const owned = policyResult<FundraiserRow>('ownsProject');

/**
 * Owner-only writes under /projects/{fundraiserId}. Anyone else, and deleted campaigns, get the
 * same 404 as an unknown id, so the answer never tells a stranger that the campaign exists.
 */
export const ownsProject: SignedInPolicy<{ fundraiserId: string }> = {
  describe: 'the caller owns the campaign (anyone else, and deleted campaigns, 404)',
  async check({ req, ctx, actor, params }) {
    const row = await findById(ctx.db, params.fundraiserId);
    if (!row || row.deleted_at || row.owner_user_id !== actor.userId) throw notFound('Fundraiser');
    owned.set(req, row);
  },
};

/** The campaign `ownsProject` loaded for this request. */
export const ownedProject = (req: Request): FundraiserRow => owned.get(req);
