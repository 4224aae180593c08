/**
 * Integrity checks over the money figures of every module (ledger balance, campaign counters,
 * donations, tips, payouts), collected here beside the route registry. They are not part of the
 * ledger's public face: donations, tips and payouts import the ledger to post, so a ledger that
 * imported their checks back would close an import cycle.
 */
export { checkLedger, ledgerChecks, type LedgerCheck } from './ledger/ledger.check';
