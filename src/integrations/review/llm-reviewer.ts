import type { Logger } from '../../infra/logger';
import type { ContentReviewer, ReviewInput, ReviewResult, UserMessage, AiDecision } from './types';
import { worstDecision } from './types';

/**
 * LLM-backed reviewer behind the same port. The deterministic rules always run first (hard
 * limits are never left to a model); the model's opinion can only make the decision stricter.
 *
 * Protocol (a thin adapter service in front of any model): POST REVIEW_LLM_URL with JSON
 * `{ title, summary, story_text, goal_amount_cents, currency, end_date }` and optional
 * `Authorization: Bearer REVIEW_LLM_API_KEY`; it answers `{ decision: 'approve'|'flag'|'block',
 * trust_score?: 0-100, reasons?: string[], messages?: [{ code, message, field? }] }`.
 * A timeout, network error or malformed answer falls back to the rules result (logged).
 */
export class LlmReviewer implements ContentReviewer {
  readonly name = 'llm' as const;

  constructor(
    private readonly rules: ContentReviewer,
    private readonly opts: { url: string; apiKey?: string; timeoutMs?: number; log?: Logger; fetchImpl?: typeof fetch },
  ) {}

  async review(input: ReviewInput): Promise<ReviewResult> {
    const base = await this.rules.review(input);
    // A rules block is final; no need to spend a model call.
    if (base.aiDecision === 'block') return base;
    let answer: unknown;
    try {
      const res = await (this.opts.fetchImpl ?? fetch)(this.opts.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify({
          title: input.title,
          summary: input.summary,
          story_text: (input.storyHtml ?? '').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 20_000),
          goal_amount_cents: input.goalAmountCents,
          currency: input.currency,
          end_date: input.endDate,
        }),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
      if (!res.ok) throw new Error(`review service answered ${res.status}`);
      answer = await res.json();
    } catch (err) {
      this.opts.log?.warn({ err }, 'LLM review unavailable; using the rules result');
      return base;
    }
    const parsed = parseAnswer(answer);
    if (!parsed) {
      this.opts.log?.warn('LLM review answer malformed; using the rules result');
      return base;
    }
    const aiDecision = worstDecision(base.aiDecision, parsed.decision);
    const trustScore = Math.min(base.trustScore, parsed.trustScore ?? base.trustScore);
    return {
      reviewer: 'llm',
      aiDecision,
      trustScore,
      payoutHold: base.payoutHold || aiDecision !== 'approve' || trustScore < 70,
      rejectionReasons: [...new Set([...base.rejectionReasons, ...parsed.reasons])],
      userMessages: [...base.userMessages, ...parsed.messages],
    };
  }
}

function parseAnswer(
  a: unknown,
): { decision: AiDecision; trustScore: number | null; reasons: string[]; messages: UserMessage[] } | null {
  if (!a || typeof a !== 'object') return null;
  const o = a as Record<string, unknown>;
  if (o.decision !== 'approve' && o.decision !== 'flag' && o.decision !== 'block') return null;
  const score = typeof o.trust_score === 'number' && Number.isFinite(o.trust_score) ? Math.round(Math.max(0, Math.min(100, o.trust_score))) : null;
  const reasons = Array.isArray(o.reasons) ? o.reasons.filter((r): r is string => typeof r === 'string').slice(0, 20) : [];
  const messages = Array.isArray(o.messages)
    ? o.messages
        .filter((m): m is Record<string, unknown> => !!m && typeof m === 'object')
        .filter((m) => typeof m.code === 'string' && typeof m.message === 'string')
        .slice(0, 20)
        .map((m) => ({
          code: String(m.code),
          message: String(m.message),
          ...(typeof m.field === 'string' ? { field: m.field } : {}),
        }))
    : [];
  return { decision: o.decision, trustScore: score, reasons, messages };
}
