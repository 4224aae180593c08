/**
 * Public face of the fundraisers module: campaign reads, the visibility policy, counters and
 * what other modules render a campaign with. Route tables are collected by src/modules/index.ts.
 * The service (create, update, delete) is deliberately absent: it calls modules (donations,
 * discovery) that import this file, so exporting it here would close an import cycle.
 */
export type { FundraiserRow, OutcomeReport, OwnerProfile } from './fundraisers.repo';
export { coverOf, findById, findByIdForUpdate, pendingQueue, recordShareVisit, setCoverTint, type AttributedGifts } from './fundraisers.repo';
export { recordReviewDecision, removeMediaUrls, setOutcomeReport } from './fundraisers.commands';
export {
  campaignCount,
  campaignCountersSql,
  campaignJoinSql,
  campaignsHeldBy,
  campaignSummaries,
  campaignSummary,
  joinCampaign,
  whereCampaignListed,
  type CampaignSummary,
} from './fundraisers.reads';
export { buildDetail, canRead, percentageFunded } from './serialize';
export { readable } from './reads';
export { fundraiserDetail, fundraiserEnvelope, isLang, SHARE_CHANNELS, type Lang, type ShareChannel } from './fundraisers.schemas';
export { adjustCounters, counterSql, goalAwaitsStamp, goalReachedSince, lockForCounters, refreshRankingCopy, setRecurringDonorCount, type CounterDelta, type CounterResult } from './counters';
export { totalsColumns, totalsFromRow, totalsOf, type FundraiserTotals } from './totals';
export { sanitizeStory } from './story-html';
export { ownedFundraiser, ownsFundraiser } from './fundraisers.policy';
export { forgetTrustStatus } from './trust-status';
export { profileReadiness } from './publish-gate';
export { COVER_TINT_QUEUE } from './fundraisers.jobs';
