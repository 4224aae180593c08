/** Public face of discovery (lists, search, locations): writers elsewhere invalidate its cached list totals. */
export { invalidateListTotals } from './list-cache';
export { searchCampaigns, type FundraiserCard } from './campaign-search';
export { fundraiserCard } from './discovery.schemas';
