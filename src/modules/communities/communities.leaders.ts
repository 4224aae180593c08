import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import * as repo from './communities.repo';
import type { CommunityRow } from './communities.repo';

const notMember = () => new ApiError(404, 'Not found', 'Member not found', { code: 'MEMBER_NOT_FOUND' });
const ownerRole = () => new ApiError(409, 'Conflict', 'The owner leads the community by owning it; the role cannot change', { code: 'OWNER_ROLE_FIXED' });

/**
 * The owner appoints (PUT) or removes (DELETE) a leader. Appointing needs an active member;
 * removing works on any member row (a lapsed leader loses the role anyway), and both are
 * idempotent. The row is locked so a concurrent lapse or rejoin does not interleave.
 */
export async function setLeader(ctx: AppContext, c: CommunityRow, userId: string, leader: boolean) {
  return ctx.db.transaction(async (trx) => {
    const m = await repo.lockMember(trx, c.id, userId);
    if (!m || (leader && m.status !== 'active')) throw notMember();
    if (m.role === 'owner' || userId === c.owner_user_id) throw ownerRole();
    const role = leader ? 'leader' : 'member';
    if (m.role !== role) await repo.setMemberRole(trx, c.id, userId, role);
    return { data: { community_id: c.id, user_id: userId, role, status: m.status } };
  });
}
