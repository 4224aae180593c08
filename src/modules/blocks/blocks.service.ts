import type { AppContext } from '../../context';
import { emit } from '../../events';
import { badRequest, notFound } from '../../http/errors';
import { findProfile } from '../idp';
import { list } from './blocks.reads';
import * as repo from './blocks.repo';

export async function block(ctx: AppContext, blockerId: string, blockedId: string): Promise<void> {
  if (blockerId === blockedId) throw badRequest('You cannot block yourself');
  if (!(await findProfile(ctx.db, blockedId))) throw notFound('User');
  await ctx.db.transaction(async (trx) => {
    // Only a new block ends the blocked user's follows (a repeated PUT changes nothing).
    if (await repo.insert(trx, blockerId, blockedId)) await emit(trx, 'user.blocked', { blocker_id: blockerId, blocked_id: blockedId });
  });
}

export async function unblock(ctx: AppContext, blockerId: string, blockedId: string): Promise<void> {
  if (blockerId === blockedId) throw badRequest('You cannot block yourself');
  await repo.remove(ctx.db, blockerId, blockedId);
}

export async function listBlocks(ctx: AppContext, blockerId: string, limit: number, offset: number) {
  const { rows, total } = await list(ctx.db, blockerId, limit, offset);
  return {
    data: rows.map((r) => ({ id: r.id, name: r.name, avatar: r.avatar, handle: r.handle, blocked_at: new Date(r.blocked_at).toISOString() })),
    pagination: { limit, offset, total },
  };
}
