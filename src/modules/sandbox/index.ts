/**
 * The sandbox processor's pages and test controls (only while STRIPE_SECRET_KEY is unset). Nothing
 * outside it needs more than its module file, which src/modules/index.ts collects.
 */
export {};
