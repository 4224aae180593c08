/** The content-review port: one interface, a deterministic rules reviewer and an LLM-backed one. */
export type AiDecision = 'approve' | 'flag' | 'block';

export interface UserMessage {
  code: string;
  message: string;
  field?: string;
}

export interface ReviewResult {
  reviewer: 'rules' | 'llm';
  aiDecision: AiDecision;
  /** 0 (no trust) to 100. */
  trustScore: number;
  /** Payouts wait for a person when the campaign is not plainly fine. */
  payoutHold: boolean;
  /** Machine-readable reason codes (snake_case). */
  rejectionReasons: string[];
  /** What the owner is told, per issue, optionally naming the field. */
  userMessages: UserMessage[];
}

export interface ReviewInput {
  /** Null while creating (nothing stored yet). */
  fundraiserId: string | null;
  ownerUserId: string;
  title: string;
  summary: string | null;
  storyHtml: string | null;
  goalAmountCents: number;
  currency: string;
  /** YYYY-MM-DD or null. */
  endDate: string | null;
}

export interface ContentReviewer {
  readonly name: 'rules' | 'llm';
  review(input: ReviewInput): Promise<ReviewResult>;
}

const SEVERITY: Record<AiDecision, number> = { approve: 0, flag: 1, block: 2 };

export function worstDecision(a: AiDecision, b: AiDecision): AiDecision {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}
