import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import type { ReviewResult, UserMessage } from '../../integrations/review';
import type { OwnerProfile } from './fundraisers.repo';
import { toIsoDate } from './dates';

/** The values the gate judges: the stored campaign with the request's changes applied. */
export interface GateCandidate {
  fundraiserId: string | null;
  ownerUserId: string;
  title: string;
  summary: string | null;
  story_html: string | null;
  goal_amount_cents: number;
  currency: string;
  end_date: string | null;
  cover_image: string | null;
  images: string[] | null;
}

/** The candidate for column values: a stored row, or a row with the request's changes merged in. */
export function candidateOf(ownerUserId: string, id: string | null, v: Record<string, unknown>): GateCandidate {
  return {
    fundraiserId: id,
    ownerUserId,
    title: String(v.title ?? ''),
    summary: (v.summary as string | null) ?? null,
    story_html: (v.story_html as string | null) ?? null,
    goal_amount_cents: Number(v.goal_amount_cents ?? 0),
    currency: String(v.currency ?? 'USD'),
    end_date: toIsoDate(v.end_date as Date | string | null),
    cover_image: (v.cover_image as string | null) ?? null,
    images: (v.images as string[] | null) ?? null,
  };
}

export interface GateOutcome {
  outcome: 'pass' | 'flag' | 'block';
  review: ReviewResult;
  reasons: string[];
  messages: UserMessage[];
}

/**
 * Profile readiness: a name, a verified email and a verified private contact. The publish gate
 * blocks on each; GET /users/me/publish-readiness lists the same codes as its hard blockers.
 */
export function profileReadiness(owner: OwnerProfile): UserMessage[] {
  const out: UserMessage[] = [];
  if (!owner.name || !owner.name.trim()) out.push({ code: 'PROFILE_NAME_MISSING', message: 'Add your name to your profile.', field: 'profile.name' });
  if (!owner.email_verified) out.push({ code: 'EMAIL_NOT_VERIFIED', message: 'Verify your email address.', field: 'profile.email' });
  if (!owner.private_contact_verified_at)
    out.push({ code: 'PRIVATE_CONTACT_NOT_VERIFIED', message: 'Verify your private contact address.', field: 'profile.private_contact' });
  return out;
}

export async function reviewCandidate(ctx: AppContext, c: GateCandidate): Promise<ReviewResult> {
  return ctx.review.review({
    fundraiserId: c.fundraiserId,
    ownerUserId: c.ownerUserId,
    title: c.title,
    summary: c.summary,
    storyHtml: c.story_html,
    goalAmountCents: c.goal_amount_cents,
    currency: c.currency,
    endDate: c.end_date,
  });
}

/**
 * The publish gate: profile readiness, at least one image, then the content review (which holds
 * the reasonability check, banned content and duplicates). Readiness, image or a review block
 * blocks; a review flag sends the campaign to staff review; otherwise it passes.
 */
export async function runPublishGate(ctx: AppContext, owner: OwnerProfile, c: GateCandidate): Promise<GateOutcome> {
  const messages = profileReadiness(owner);
  if (!c.cover_image && !(c.images && c.images.length > 0)) {
    messages.push({ code: 'IMAGE_REQUIRED', message: 'Add at least one image.', field: 'cover_image' });
  }
  const review = await reviewCandidate(ctx, c);
  const reviewBlocks = review.aiDecision === 'block';
  const all = [...messages, ...review.userMessages];
  const reasons = [...new Set([...messages.map((m) => m.code.toLowerCase()), ...review.rejectionReasons])];
  const outcome = messages.length > 0 || reviewBlocks ? 'block' : review.aiDecision === 'flag' ? 'flag' : 'pass';
  return { outcome, review, reasons, messages: all };
}

export function gateFailed(g: GateOutcome): ApiError {
  return new ApiError(403, 'Forbidden', 'The campaign cannot be published until the listed issues are fixed', {
    code: 'PUBLISH_GATE_FAILED',
    reasons: g.reasons,
    messages: g.messages,
  });
}
