import { on, type Subscriber } from '../../events';
import { userName } from '../idp';
import { notify, recipientLocale } from '../notifications';
import { joinDecidedCopy, joinRequestedCopy } from './communities.copy';
import * as repo from './communities.repo';

/**
 * Leaders hear of each request once it can be decided (its card saved); the requester hears of
 * the decision. Dedupe keys name the request, so a redelivered event notifies no one twice.
 */
export const communitySubscribers: Subscriber[] = [
  on('community.join_requested', 'communities.join_requested', async (ctx, p, trx) => {
    const c = await repo.findCommunity(trx, p.community_id);
    if (!c) return;
    const requester = await userName(trx, p.requester_user_id);
    const url = `${ctx.config.SITE_URL}/communities/${encodeURIComponent(c.slug)}/join-requests`;
    const leaders = new Set([c.owner_user_id, ...(await repo.leaderIds(trx, c.id))]);
    leaders.delete(p.requester_user_id);
    for (const userId of leaders) {
      await notify(trx, {
        user_id: userId,
        type: 'community_join_requested',
        category: 'community',
        icon: 'user-plus',
        action_url: url,
        ...joinRequestedCopy(await recipientLocale(trx, userId), { requester, community_name: c.name, url }),
        metadata: { community_id: c.id, join_id: p.join_id, requester_user_id: p.requester_user_id },
        dedupe_key: `community_join_requested:${p.join_id}:${userId}`,
      });
    }
  }),
  on('community.join_decided', 'communities.join_decided', async (ctx, p, trx) => {
    const c = await repo.findCommunity(trx, p.community_id);
    if (!c) return;
    const url = `${ctx.config.SITE_URL}/communities/${encodeURIComponent(c.slug)}`;
    await notify(trx, {
      user_id: p.requester_user_id,
      type: `community_join_${p.decision}`,
      category: 'community',
      priority: p.decision === 'approved' ? 'high' : 'normal',
      icon: p.decision === 'approved' ? 'check' : 'x',
      action_url: url,
      ...joinDecidedCopy(await recipientLocale(trx, p.requester_user_id), p.decision, { community_name: c.name, url }),
      metadata: { community_id: c.id, join_id: p.join_id, decision: p.decision },
      dedupe_key: `community_join_decided:${p.join_id}`,
    });
  }),
];
