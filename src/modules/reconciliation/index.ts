/** Recovering missed processor events and reconciling each day with the processor (docs/decisions/0016-recovery-and-reconciliation.md). */
export { recheckPayments, catchUpEvents, recoverPayments, recoverSince, type RecoveryReport, type ReplayReport } from './recovery.service';
export { reconcileDay, yesterdayUtc, runView } from './reconcile.service';
export type { Difference, RunRow } from './reconciliation.repo';
