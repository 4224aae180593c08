import type { AppContext } from '../../context';
import { latestReview, saveReview } from '../../integrations/review/review.repo';
import type { FundraiserRow } from './fundraisers.repo';
import { reviewCandidate } from './publish-gate';
import { toIsoDate } from './serialize';

export interface TrustStatus {
  aiDecision: 'approve' | 'flag' | 'block';
  trustScore: number;
  payoutHold: boolean;
  rejectionReasons: string[];
  userMessages: Array<{ code: string; message: string; field?: string }>;
}

const TTL_SECONDS = 15 * 60;
const key = (id: string) => `fundraiser:trust:${id}`;

/**
 * The owner's view of the latest review, cached 15 minutes. A campaign never reviewed (e.g.
 * inserted by an import) is reviewed on first read. Staff rejection reasons are appended.
 */
export async function trustStatusFor(ctx: AppContext, row: FundraiserRow): Promise<TrustStatus> {
  return ctx.cache.wrap(key(row.id), TTL_SECONDS, async () => {
    let stored = await latestReview(ctx.db, row.id);
    if (!stored) {
      const r = await reviewCandidate(ctx, {
        fundraiserId: row.id,
        ownerUserId: row.owner_user_id,
        title: row.title,
        summary: row.summary,
        story_html: row.story_html,
        goal_amount_cents: Number(row.goal_amount_cents),
        currency: row.currency,
        end_date: toIsoDate(row.end_date),
        cover_image: row.cover_image,
        images: row.images,
      });
      await saveReview(ctx.db, row.id, r);
      stored = await latestReview(ctx.db, row.id);
    }
    const s = stored!;
    return {
      aiDecision: s.ai_decision as TrustStatus['aiDecision'],
      trustScore: s.trust_score,
      payoutHold: s.payout_hold,
      rejectionReasons: [...new Set([...(s.rejection_reasons ?? []), ...(row.review_rejection_reasons ?? [])])],
      userMessages: s.user_messages ?? [],
    };
  });
}

/** Called whenever a new review result or staff decision is stored. */
export async function forgetTrustStatus(ctx: AppContext, id: string): Promise<void> {
  await ctx.cache.del(key(id));
}
