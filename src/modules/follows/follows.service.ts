import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Db } from '../../db/knex';
import { emit } from '../../events';
import { ApiError, badRequest, notFound } from '../../http/errors';
import { isBlocked } from '../blocks';
import { findProfile } from '../idp';
import { organizationExists } from '../organizations';
import * as repo from './follows.repo';
import type { FollowingType } from './follows.repo';
import { toFollow } from './follows.schemas';

/** A user account while it is active (the one to follow, or who followed); identity's profile read. */
export async function activeUser(db: Db | Knex.Transaction, id: string) {
  const user = await findProfile(db, id);
  return user?.status === 'active' ? user : undefined;
}

/** Answers the follow and whether this call started it (201) or it was already active (200). */
export async function follow(ctx: AppContext, followerId: string, type: FollowingType, targetId: string) {
  if (type === 'user') {
    if (targetId === followerId) throw badRequest('You cannot follow yourself');
    if (!(await activeUser(ctx.db, targetId))) throw notFound('User');
    if (await isBlocked(ctx.db, targetId, followerId)) {
      throw new ApiError(403, 'Forbidden', 'This user does not accept you as a follower', { code: 'BLOCKED' });
    }
  } else if (!(await organizationExists(ctx.db, targetId))) {
    throw new ApiError(404, 'Not found', 'Organization not found');
  }
  return ctx.db.transaction(async (trx) => {
    const created = await repo.insertActive(trx, followerId, type, targetId);
    if (created) {
      await emit(trx, 'follow.created', { follow_id: created.id, follower_id: followerId, following_type: type, following_id: targetId });
      return { created: true, data: toFollow(created) };
    }
    const existing = await repo.findActive(trx, followerId, type, targetId);
    return { created: false, data: toFollow(existing!) };
  });
}

export async function unfollow(ctx: AppContext, followerId: string, type: FollowingType, targetId: string): Promise<void> {
  await repo.endActive(ctx.db, followerId, type, targetId);
}

export async function listFollows(ctx: AppContext, followerId: string, limit: number, offset: number) {
  const { rows, total } = await repo.list(ctx.db, followerId, limit, offset);
  return { data: rows.map(toFollow), pagination: { limit, offset, total } };
}
