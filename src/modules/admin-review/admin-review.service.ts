import type { AppContext } from '../../context';
import { emit } from '../../events';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { buildDetail, findByIdForUpdate, forgetTrustStatus, pendingQueue, recordReviewDecision } from '../fundraisers';
import { invalidateListTotals } from '../../infra/list-totals-version';

/** Pending campaigns, oldest submission first, with the owner-level detail (incl. trustStatus). */
export async function reviewQueue(ctx: AppContext, actor: Actor, limit: number, offset: number) {
  const { rows, total } = await pendingQueue(ctx.db, limit, offset);
  const data = [];
  for (const row of rows) {
    const detail = await buildDetail(ctx, row, { actor, slugRead: true, includePrivate: true });
    data.push({ ...detail, submitted_at: (row.submitted_at ?? row.created_at).toISOString() });
  }
  return { data, pagination: { limit, offset, total } };
}

async function decide(ctx: AppContext, actor: Actor, id: string, to: 'active' | 'rejected', reasons: string[]) {
  const updated = await ctx.db.transaction(async (trx) => {
    const row = await findByIdForUpdate(trx, id);
    if (!row || row.deleted_at) throw notFound('Fundraiser');
    // Four eyes: staff never decide on their own campaign, whichever way.
    if (row.owner_user_id === actor.userId) {
      throw new ApiError(403, 'Forbidden', 'You cannot review your own campaign; another staff member must decide', { code: 'SELF_REVIEW' });
    }
    if (row.status !== 'pending') {
      throw new ApiError(409, 'Conflict', `Only pending campaigns can be reviewed; this one is ${row.status}`, {
        code: 'INVALID_STATUS_TRANSITION',
        from: row.status,
        to,
      });
    }
    const next = await recordReviewDecision(trx, id, { decision: to, reviewerId: actor.userId, reasons });
    if (to === 'active') await emit(trx, 'fundraiser.published', { fundraiser_id: next.id, owner_user_id: next.owner_user_id, org_id: next.org_id ?? null });
    else await emit(trx, 'fundraiser.updated', { fundraiser_id: next.id, fields: ['status'] });
    return next;
  });
  await forgetTrustStatus(ctx, id);
  if (to === 'active') await invalidateListTotals(ctx);
  return { data: await buildDetail(ctx, updated, { actor, slugRead: false, includePrivate: true }) };
}

export const approve = (ctx: AppContext, actor: Actor, id: string) => decide(ctx, actor, id, 'active', []);
export const reject = (ctx: AppContext, actor: Actor, id: string, reasons: string[]) => decide(ctx, actor, id, 'rejected', reasons);
