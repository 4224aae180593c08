/** The ledger: the one source of money truth. Other modules post balanced groups and read balances here. */
export { accounts, RAISED_KINDS, type LedgerKind } from './accounts';
export { post, UnbalancedLedgerGroup } from './ledger.service';
export { balance, type LedgerEntry } from './ledger.repo';
export type { LedgerCheck } from './ledger.check';
