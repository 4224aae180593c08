/**
 * Paid communities: joins with or without a leader's approval, the community fund and its
 * withdrawals. Other modules need only the prune of expired withdrawal codes (the crontab's); the
 * rest is in its module file, which src/modules/index.ts collects.
 */
export { pruneExpiredWithdrawalCodes } from './communities.repo';
