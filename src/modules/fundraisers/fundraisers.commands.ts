import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { update, type FundraiserRow, type OutcomeReport } from './fundraisers.repo';

type Q = Db | Knex.Transaction;

/**
 * Changes other modules make to a campaign, each named for what it does (the service keeps
 * create, update and delete): staff review, DMCA take-downs and the outcome report.
 */

/** Staff decide a pending campaign: published (approved now) or rejected with reasons. Answers the updated row. */
export async function recordReviewDecision(
  trx: Knex.Transaction,
  id: string,
  d: { decision: 'active' | 'rejected'; reviewerId: string; reasons: string[] },
): Promise<FundraiserRow> {
  return update(trx, id, {
    status: d.decision,
    reviewed_at: trx.fn.now(),
    reviewed_by: d.reviewerId,
    review_rejection_reasons: d.decision === 'rejected' ? d.reasons : null,
    ...(d.decision === 'active' ? { approved_at: trx.fn.now() } : {}),
  });
}

/**
 * Takes the URLs in `gone` off the campaign `row` (read locked in trx): the cover (with its focal
 * point), the video and gallery images showing one of them. Writes nothing when none is shown.
 */
export async function removeMediaUrls(trx: Knex.Transaction, row: FundraiserRow, gone: ReadonlySet<string>): Promise<void> {
  const patch: Record<string, unknown> = {};
  if (row.cover_image && gone.has(row.cover_image)) Object.assign(patch, { cover_image: null, cover_image_focal_x: null, cover_image_focal_y: null });
  if (row.video_url && gone.has(row.video_url)) patch.video_url = null;
  if (row.images?.some((u) => gone.has(u))) patch.images = row.images.filter((u) => !gone.has(u));
  if (Object.keys(patch).length) await update(trx, row.id, patch);
}

/** Replaces the campaign's outcome report (already sanitised); the slug read shows it. */
export async function setOutcomeReport(db: Q, id: string, report: OutcomeReport): Promise<void> {
  await update(db, id, { outcome_report: JSON.stringify(report) });
}
