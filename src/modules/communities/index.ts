/**
 * Paid communities: joins with or without a leader's approval, the community fund and its
 * withdrawals. Nothing outside it needs more than its module file, which src/modules/index.ts collects.
 */
export {};
