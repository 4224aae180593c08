/** The ledger: the one source of money truth. Other modules post balanced groups and read balances here. */
export { accounts, FEE_KINDS, RAISED_KINDS, type LedgerKind } from './accounts';
export { post, UnbalancedLedgerGroup, type ProcessorMove } from './ledger.service';
export { balance, campaignLedgerFigures, groupCount as ledgerGroupCount, type CampaignFigures, type LedgerEntry } from './ledger.repo';
export * as ledgerSql from './ledger.reads';
export type { LedgerCheck } from './ledger.check';
