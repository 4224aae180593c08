import type { Request } from 'express';
import { ApiError, notFound } from '../../http/errors';
import { policyResult, type SignedInPolicy } from '../../http/policy-result';
import * as repo from './communities.repo';
import type { CommunityRow } from './communities.repo';

const loaded = policyResult<CommunityRow>('community');

async function load(db: Parameters<typeof repo.findCommunity>[0], idOrSlug: string): Promise<CommunityRow> {
  const c = await repo.findCommunity(db, idOrSlug);
  if (!c) throw notFound('Community');
  return c;
}

/**
 * The community's leaders (its owner and members holding the leader role) decide on join
 * requests. Unknown community 404; anyone else 403.
 */
export const leadsCommunity: SignedInPolicy<{ id: string }> = {
  describe: "the caller leads the community (its owner or a leader; 403 for others, 404 when it doesn't exist)",
  async check({ req, ctx, actor, params }) {
    const c = await load(ctx.db, params.id);
    const m = c.owner_user_id === actor.userId ? { role: 'owner', status: 'active' } : await repo.membership(ctx.db, c.id, actor.userId);
    if (!m || m.status !== 'active' || (m.role !== 'owner' && m.role !== 'leader')) {
      throw new ApiError(403, 'Forbidden', "Only the community's leaders can do this", { code: 'COMMUNITY_LEADER_ONLY' });
    }
    loaded.set(req, c);
  },
};

/** The community fund and the choice of leaders are its owner's alone. Unknown community 404; anyone else 403. */
export const ownsCommunity: SignedInPolicy<{ id: string }> = {
  describe: "the caller owns the community (403 for others, 404 when it doesn't exist)",
  async check({ req, ctx, actor, params }) {
    const c = await load(ctx.db, params.id);
    if (c.owner_user_id !== actor.userId) {
      throw new ApiError(403, 'Forbidden', "Only the community's owner can do this", { code: 'COMMUNITY_OWNER_ONLY' });
    }
    loaded.set(req, c);
  },
};

/** The community a policy above loaded for this request. */
export const policyCommunity = (req: Request): CommunityRow => loaded.get(req);
