import type { Db } from '../../db/knex';

export interface StoredReview {
  fundraiser_id: string;
  reviewer: string;
  ai_decision: string;
  trust_score: number;
  payout_hold: boolean;
  rejection_reasons: string[];
  user_messages: Array<{ code: string; message: string; field?: string }>;
  reviewed_at: Date;
}

export async function saveReview(
  db: Db,
  fundraiserId: string,
  r: { reviewer: string; aiDecision: string; trustScore: number; payoutHold: boolean; rejectionReasons: string[]; userMessages: unknown[] },
): Promise<void> {
  const row = {
    fundraiser_id: fundraiserId,
    reviewer: r.reviewer,
    ai_decision: r.aiDecision,
    trust_score: r.trustScore,
    payout_hold: r.payoutHold,
    rejection_reasons: r.rejectionReasons,
    user_messages: JSON.stringify(r.userMessages),
    reviewed_at: db.fn.now(),
  };
  await db('fundraiser_reviews').insert(row).onConflict('fundraiser_id').merge();
}

export async function latestReview(db: Db, fundraiserId: string): Promise<StoredReview | undefined> {
  return db('fundraiser_reviews').where({ fundraiser_id: fundraiserId }).first();
}
