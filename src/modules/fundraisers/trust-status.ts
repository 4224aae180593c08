import type { z } from 'zod';
import type { AppContext } from '../../context';
import { latestReview, saveReview } from '../../integrations/review/review.repo';
import type { FundraiserRow } from './fundraisers.repo';
import type { trustStatusSchema } from './fundraisers.schemas';
import { candidateOf, reviewCandidate } from './publish-gate';

/** The owner's view of the review (the detail read's `trustStatus`). */
export type TrustStatus = z.infer<typeof trustStatusSchema>;

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
      const r = await reviewCandidate(ctx, candidateOf(row.owner_user_id, row.id, { ...row }));
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
