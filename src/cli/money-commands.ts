import type { Config } from '../config';
import type { Db } from '../db/knex';
import { createLogger } from '../infra/logger';
import { CliError, quiet, UsageError, withHeartbeat, type Command } from './command';

/**
 * Money that reconciles (docs/decisions/0016-recovery-and-reconciliation.md): the payment recovery the worker runs every
 * PAYMENT_RECHECK_INTERVAL_S, on demand, and a day's reconciliation with the processor.
 */

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function dayArg(args: string[]): string | undefined {
  const i = args.indexOf('--day');
  if (i < 0) {
    if (args.length) throw new UsageError(`unknown argument: ${args[0]}`);
    return undefined;
  }
  const d = args[i + 1];
  if (!d || !DAY.test(d) || Number.isNaN(Date.parse(`${d}T00:00:00Z`)) || !new Date(`${d}T00:00:00Z`).toISOString().startsWith(d)) {
    throw new UsageError('--day takes a date YYYY-MM-DD');
  }
  return d;
}

function afterArg(args: string[]): number | undefined {
  const i = args.indexOf('--after-s');
  if (i < 0) {
    if (args.length) throw new UsageError(`unknown argument: ${args[0]}`);
    return undefined;
  }
  const n = Number(args[i + 1]);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError('--after-s takes a whole number of seconds');
  return n;
}

/** The processor and the handlers a webhook delivery would use, over the CLI's database. Loaded here: only these commands need every module. */
function appContext(db: Db, config: Config) {
  const { createContext } = require('../create-context') as typeof import('../create-context');
  const { collected } = require('../modules') as typeof import('../modules');
  const ctx = createContext({ config, db, log: createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL) });
  return { ctx, handlers: collected.webhookHandlers };
}

/** An ISO 8601 time with a date and an hour (a zone, or UTC), not in the future. */
function sinceArg(args: string[]): Date {
  const [at, ...rest] = args;
  if (rest.length) throw new UsageError(`unknown argument: ${rest[0]}`);
  const ms = at && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(at) ? Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(at) ? at : `${at}Z`) : NaN;
  if (Number.isNaN(ms)) throw new UsageError('recover-since takes an ISO time, e.g. 2026-11-28T09:30:00Z (UTC when no zone is given)');
  if (ms > Date.now()) throw new UsageError('recover-since: the time is in the future');
  return new Date(ms);
}

type Tally = import('../modules/reconciliation').ReplayReport;
const counts = (t: Pick<Tally, 'listed' | 'applied' | 'ignored' | 'duplicate' | 'failed'>) =>
  `${t.listed} (${t.applied} applied, ${t.ignored} new but changed nothing, ${t.duplicate} already recorded${t.failed ? `, ${t.failed} failed` : ''})`;

export const moneyCommands: Record<string, Command> = {
  'recover-since': {
    usage: '<ISO time>',
    summary: "after a restore: replay the processor's events since that time (less 5 minutes) through the webhook's exactly-once path, then carry out again the erasures the restore undid",
    check: (args) => void sinceArg(args),
    async run(db, args, config, progress = quiet) {
      const { ctx, handlers } = appContext(db, config);
      const { recoverSince } = require('../modules/reconciliation') as typeof import('../modules/reconciliation');
      const from = sinceArg(args);
      const r = await withHeartbeat(progress, 'recover-since', () => recoverSince(ctx, handlers, from));
      const types = Object.keys(r.byType).sort();
      const lines = [
        `recover-since ${from.toISOString()}: ${counts(r)} processor event(s) listed from ${r.since.toISOString()} (${ctx.payments.name})`,
        ...types.map((t) => `  ${t}: ${counts(r.byType[t]!)}`),
      ];
      if (r.failed) throw new CliError(`${lines.join('\n')}\n${r.failed} event(s) failed (logged); run it again: recorded ones change nothing`);
      // Gifts rebuilt from the processor may belong to someone erased since the restore point: the erasure log runs last.
      const { reapplyLoggedErasures } = require('./privacy-commands') as typeof import('./privacy-commands');
      lines.push(await reapplyLoggedErasures(db, config));
      return lines.join('\n');
    },
  },
  'recheck-payments': {
    usage: '[--after-s N]',
    summary: 'ask the processor now about every payment still pending after N seconds (default PAYMENT_RECHECK_AFTER_S) and catch up on its events',
    check: (args) => void afterArg(args),
    async run(db, args, config, progress = quiet) {
      const { ctx, handlers } = appContext(db, config);
      const { recoverPayments } = require('../modules/reconciliation') as typeof import('../modules/reconciliation');
      const r = await withHeartbeat(progress, 'recheck-payments', () => recoverPayments(ctx, handlers, afterArg(args)));
      if (r.failed) throw new CliError(`recheck-payments: ${r.rechecked} payment(s) asked about, ${r.listed} event(s) listed, ${r.applied} applied, ${r.failed} failed (asked again next run)`);
      return `${r.rechecked} payment(s) asked about, ${r.listed} event(s) listed, ${r.applied} applied`;
    },
  },
  reconcile: {
    usage: '[--day YYYY-MM-DD]',
    summary: "compare the processor's balance transactions of a UTC day (default yesterday) with the ledger; exit 1 listing each difference",
    check: (args) => void dayArg(args),
    async run(db, args, config, progress = quiet) {
      const { ctx } = appContext(db, config);
      const { reconcileDay, yesterdayUtc } = require('../modules/reconciliation') as typeof import('../modules/reconciliation');
      const day = dayArg(args) ?? yesterdayUtc();
      const run = await reconcileDay(ctx, day, (n) => progress(`reconcile ${day}: ${n} balance transaction(s) listed`));
      if (run.status === 'failed') throw new CliError(`reconcile ${day}: the processor could not be listed: ${run.error}`);
      if (run.status === 'differences') {
        const lines = run.differences.map(
          (d) =>
            `${d.kind} ${d.move} ${d.ref ?? '(no id)'}: processor ${d.processor ? `${d.processor.amount_cents} ${d.processor.currency} [${d.processor.ids.join(',')}]` : '-'}; ledger ${d.ledger ? `${d.ledger.amount_cents} ${d.ledger.currency} [${d.ledger.group_ids.join(',')}]` : '-'}`,
        );
        throw new CliError(`reconcile ${day}: ${run.differences.length} difference(s) (${run.checked_processor} balance transactions, ${run.checked_ledger} ledger groups):\n${lines.join('\n')}`);
      }
      return `reconcile ${day}: clean (${run.checked_processor} balance transactions, ${run.checked_ledger} ledger groups)`;
    },
  },
};
