/**
 * Platform tips: one-time and monthly, settled by processor webhooks into the ledger. Nothing
 * outside it needs more than its module file (routes, webhook handlers, ledger check).
 */
export {};
