import type { Request } from 'express';
import { notFound } from '../../http/errors';
import { policyResult, type SignedInPolicy } from '../../http/policy-result';
import { findById, type FundraiserRow } from '../fundraisers';

const owned = policyResult<FundraiserRow>('ownsCampaign');

/** Only the owner asks for endorsements; anyone else, and deleted campaigns, get the 404 of an unknown id. */
export const ownsCampaign: SignedInPolicy<{ id: string }> = {
  describe: 'the caller owns the campaign (anyone else, and deleted campaigns, 404)',
  async check({ req, ctx, actor, params }) {
    const row = await findById(ctx.db, params.id);
    if (!row || row.deleted_at || row.owner_user_id !== actor.userId) throw notFound('Fundraiser');
    owned.set(req, row);
  },
};

export const ownedCampaign = (req: Request): FundraiserRow => owned.get(req);

/** Endorsable: public (not unlisted or private), live (active or ended) and not deleted. */
export const isEndorsable = (f: FundraiserRow): boolean =>
  !f.deleted_at && f.visibility === 'public' && (f.status === 'active' || f.status === 'ended');
