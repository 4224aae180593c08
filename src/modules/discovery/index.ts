/** Public face of discovery (lists, search, locations). Writers invalidate its cached list totals through infra/list-totals-version.ts. */
export { searchCampaigns, type FundraiserCard } from './campaign-search';
export { fundraiserCard } from './discovery.schemas';
