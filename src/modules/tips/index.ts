/** Platform tips: one-time and monthly, settled by processor webhooks into the ledger. */
export { tipWebhooks } from './tips.webhooks';
export { tipLedgerCheck } from './tips.check';
