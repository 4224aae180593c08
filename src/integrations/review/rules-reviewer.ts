import type { Db } from '../../db/knex';
import { normalizeText, findTerms } from './normalize';
import { findSimilarCampaigns } from './similar-campaigns.reads';
import type { AiDecision, ContentReviewer, ReviewInput, ReviewResult, UserMessage } from './types';
import { worstDecision } from './types';
import { BLOCK_TERMS, FLAG_TERMS } from './word-lists';

/** Bounds the rules reviewer enforces (the gate's reasonability check). */
export const REASONABLE = {
  goalMinCents: 100, // $1
  goalMaxCents: 1_000_000_000, // $10M
  endDateMaxDays: 365,
  titleMin: 5,
  storyTextMin: 20,
  duplicateTitle: 0.85,
  duplicateStory: 0.8,
  duplicateStoryMinChars: 200,
} as const;

interface Finding {
  decision: AiDecision;
  penalty: number;
  reason: string;
  message: UserMessage;
}

function plainText(html: string | null): string {
  return (html ?? '').replace(/<[^>]*>/g, ' ').replace(/&[a-z#0-9]+;/gi, ' ').replace(/\s+/g, ' ').trim();
}

/** Today's date as YYYY-MM-DD in UTC, and a date `days` later. */
function isoDay(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

export function reasonabilityFindings(input: ReviewInput): Finding[] {
  const out: Finding[] = [];
  const block = (reason: string, field: string, message: string): Finding => ({
    decision: 'block',
    penalty: 25,
    reason,
    message: { code: reason.toUpperCase(), message, field },
  });
  if (!Number.isInteger(input.goalAmountCents) || input.goalAmountCents < REASONABLE.goalMinCents || input.goalAmountCents > REASONABLE.goalMaxCents) {
    out.push(block('goal_out_of_range', 'goal_amount_cents', 'The goal must be between $1 and $10,000,000.'));
  }
  if (input.endDate !== null) {
    if (input.endDate <= isoDay(0)) out.push(block('end_date_in_past', 'end_date', 'The end date must be in the future.'));
    else if (input.endDate > isoDay(REASONABLE.endDateMaxDays))
      out.push(block('end_date_too_far', 'end_date', 'The end date must be within one year.'));
  }
  if (input.title.trim().length < REASONABLE.titleMin) {
    out.push(block('title_too_short', 'title', `The title needs at least ${REASONABLE.titleMin} characters.`));
  }
  if (plainText(input.storyHtml).length < REASONABLE.storyTextMin) {
    out.push(block('story_too_short', 'story_html', `The story needs at least ${REASONABLE.storyTextMin} characters of text.`));
  }
  return out;
}

export function bannedContentFindings(input: ReviewInput): Finding[] {
  const text = normalizeText([input.title, input.summary ?? '', plainText(input.storyHtml)].join(' '));
  const out: Finding[] = [];
  const blocked = findTerms(text, BLOCK_TERMS);
  if (blocked.length) {
    out.push({
      decision: 'block',
      penalty: 60,
      reason: 'prohibited_content',
      message: { code: 'PROHIBITED_CONTENT', message: 'The campaign describes something our terms do not allow.' },
    });
  }
  const flagged = findTerms(text, FLAG_TERMS);
  if (flagged.length) {
    out.push({
      decision: 'flag',
      penalty: 20,
      reason: 'sensitive_content',
      message: { code: 'SENSITIVE_CONTENT', message: 'The campaign mentions topics our team reviews before publishing.' },
    });
  }
  return out;
}

/** Deterministic reviewer: reasonability, banned content, duplicates of existing campaigns. */
export class RulesReviewer implements ContentReviewer {
  readonly name = 'rules' as const;

  constructor(private readonly db: Db) {}

  async duplicateFindings(input: ReviewInput): Promise<Finding[]> {
    const story = plainText(input.storyHtml);
    const similar = await findSimilarCampaigns(this.db, {
      excludeId: input.fundraiserId,
      ownerUserId: input.ownerUserId,
      title: normalizeText(input.title),
      storyText: story.length >= REASONABLE.duplicateStoryMinChars ? story : null,
    });
    const dupes = similar.filter(
      (s) =>
        s.title_similarity >= REASONABLE.duplicateTitle ||
        (s.story_similarity !== null && s.story_similarity >= REASONABLE.duplicateStory),
    );
    const out: Finding[] = [];
    if (dupes.some((d) => d.owner_user_id === input.ownerUserId)) {
      out.push({
        decision: 'flag',
        penalty: 20,
        reason: 'duplicate_of_own_campaign',
        message: { code: 'DUPLICATE_OWN_CAMPAIGN', message: 'You already have a very similar campaign.', field: 'title' },
      });
    }
    if (dupes.some((d) => d.owner_user_id !== input.ownerUserId)) {
      out.push({
        decision: 'flag',
        penalty: 30,
        reason: 'duplicate_of_other_campaign',
        message: { code: 'DUPLICATE_CAMPAIGN', message: 'This campaign closely matches another person’s campaign.', field: 'title' },
      });
    }
    return out;
  }

  async review(input: ReviewInput): Promise<ReviewResult> {
    const findings = [...reasonabilityFindings(input), ...bannedContentFindings(input), ...(await this.duplicateFindings(input))];
    return summarize('rules', findings);
  }
}

function summarize(reviewer: 'rules', findings: Finding[]): ReviewResult {
  let decision: AiDecision = 'approve';
  let score = 100;
  for (const f of findings) {
    decision = worstDecision(decision, f.decision);
    score -= f.penalty;
  }
  const trustScore = Math.max(0, Math.min(100, score));
  return {
    reviewer,
    aiDecision: decision,
    trustScore,
    payoutHold: decision !== 'approve' || trustScore < 70,
    rejectionReasons: [...new Set(findings.map((f) => f.reason))],
    userMessages: findings.map((f) => f.message),
  };
}
