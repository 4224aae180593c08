import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import type { Logger } from '../../infra/logger';
import { LlmReviewer } from './llm-reviewer';
import { RulesReviewer } from './rules-reviewer';
import type { ContentReviewer } from './types';

export type { AiDecision, ContentReviewer, ReviewInput, ReviewResult, UserMessage } from './types';
export { RulesReviewer } from './rules-reviewer';
export { LlmReviewer } from './llm-reviewer';

/** The content reviewer for this process: rules by default, LLM-backed when REVIEW_LLM_URL is set. */
export function createReviewer(config: Config, db: Db, log?: Logger): ContentReviewer {
  const rules = new RulesReviewer(db);
  if (config.REVIEW_LLM_URL) return new LlmReviewer(rules, { url: config.REVIEW_LLM_URL, apiKey: config.REVIEW_LLM_API_KEY, log });
  return rules;
}
