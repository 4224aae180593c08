import type { Db } from '../../db/knex';
import type { PaymentProcessor } from '../../integrations/payments';
import { compareDay, type ComparedRow } from './reconciliation.reads';
import { saveRun, upsertBalanceTxns, type Difference, type RunRow } from './reconciliation.repo';

/**
 * Reconciliation with the processor (docs/decisions/0016-recovery-and-reconciliation.md): every balance transaction of a UTC
 * day, listed page by page and kept by id (never the whole day in memory), is compared in SQL
 * with the ledger groups that name the same processor id and kind of movement, both ways.
 * The day's run (clean, differences, or failed when the processor could not be listed) replaces
 * the one before.
 */

/** YYYY-MM-DD of the day before `now`, in UTC (the default day). */
export function yesterdayUtc(now = new Date()): string {
  return new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
}

export function dayBounds(day: string): { from: Date; to: Date } {
  const from = new Date(`${day}T00:00:00.000Z`);
  return { from, to: new Date(from.getTime() + 86_400_000) };
}

const num = (s: string | null) => (s === null ? 0 : Number(s));

function difference(r: ComparedRow): Difference {
  const processor = r.p_ids ? { ids: r.p_ids, amount_cents: num(r.p_amount), currency: r.p_currency ?? '' } : null;
  const ledger = r.l_groups ? { group_ids: r.l_groups, amount_cents: num(r.l_amount), currency: r.l_currency ?? '' } : null;
  const kind: Difference['kind'] = !ledger
    ? 'missing_in_ledger'
    : !processor
      ? 'missing_at_processor'
      : processor.currency !== ledger.currency
        ? 'currency_differs'
        : 'amount_differs';
  return { kind, ref: r.ref, move: r.move, processor, ledger };
}

export interface ReconcileDeps {
  db: Db;
  payments: Pick<PaymentProcessor, 'listBalanceTransactions' | 'name'>;
}

/** Reconciles one day; `onPage` reports progress (the CLI's heartbeat, the bench). */
export async function reconcileDay(deps: ReconcileDeps, day: string, onPage?: (listed: number) => void): Promise<RunRow> {
  const { from, to } = dayBounds(day);
  let listed = 0;
  try {
    for await (const page of deps.payments.listBalanceTransactions(from, to)) {
      await upsertBalanceTxns(deps.db, page);
      listed += page.length;
      onPage?.(listed);
    }
  } catch (err) {
    return saveRun(deps.db, { day, status: 'failed', checked_processor: listed, checked_ledger: 0, differences: [], error: (err as Error).message ?? String(err) });
  }
  // Stripe lists the platform's balance only: connected accounts' payouts are theirs, so the
  // ledger's payout groups are compared only where the processor lists them (the sandbox).
  const cmp = await compareDay(deps.db, from, to, { payouts: deps.payments.name === 'sandbox' });
  const differences = cmp.rows.map(difference);
  return saveRun(deps.db, {
    day,
    status: differences.length ? 'differences' : 'clean',
    checked_processor: cmp.processor,
    checked_ledger: cmp.ledger,
    differences,
    error: null,
  });
}

/** The API's shape of a run (docs/money/recovery-and-reconciliation.md): `checked` holds both sides' counts. */
export function runView(r: RunRow) {
  return {
    day: r.day,
    status: r.status,
    checked: { processor: r.checked_processor, ledger: r.checked_ledger },
    differences: r.differences,
    ran_at: new Date(r.ran_at).toISOString(),
  };
}
