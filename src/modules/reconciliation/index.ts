/** Recovering missed processor events and reconciling each day with the processor (decisions.md Part 4). */
export { recheckPayments, catchUpEvents, recoverPayments, type RecoveryReport } from './recovery.service';
export { reconcileDay, yesterdayUtc, runView } from './reconcile.service';
export type { Difference, RunRow } from './reconciliation.repo';
