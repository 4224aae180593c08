import type { Knex } from 'knex';
import type { BalanceTransaction } from '../../integrations/payments';

type Q = Knex | Knex.Transaction;

/** Keeps a page of the processor's balance transactions (a rerun of the day updates them in place). */
export async function upsertBalanceTxns(db: Q, page: BalanceTransaction[]): Promise<void> {
  if (page.length === 0) return;
  await db('processor_balance_transactions')
    .insert(
      page.map((t) => ({
        id: t.id,
        type: t.type,
        move: t.move,
        ref: t.ref,
        amount_cents: t.amount_cents,
        fee_cents: t.fee_cents,
        net_cents: t.net_cents,
        currency: t.currency,
        created_at: t.created,
      })),
    )
    .onConflict('id')
    .merge(['type', 'move', 'ref', 'amount_cents', 'fee_cents', 'net_cents', 'currency', 'created_at']);
}

export interface Difference {
  kind: 'missing_in_ledger' | 'missing_at_processor' | 'amount_differs' | 'currency_differs';
  /** The processor id both sides name (a PaymentIntent, transfer, reversal or payout); null for a movement that names none. */
  ref: string | null;
  move: string;
  processor: { ids: string[]; amount_cents: number; currency: string } | null;
  ledger: { group_ids: string[]; amount_cents: number; currency: string } | null;
}

export interface RunRow {
  day: string;
  status: 'clean' | 'differences' | 'failed';
  checked_processor: number;
  checked_ledger: number;
  differences: Difference[];
  error: string | null;
  ran_at: Date;
}

/** The day's last run replaces the one before. */
export async function saveRun(db: Q, run: Omit<RunRow, 'ran_at'>): Promise<RunRow> {
  const [row] = await db('reconciliation_runs')
    .insert({ ...run, differences: JSON.stringify(run.differences) })
    .onConflict('day')
    .merge({ ...run, differences: JSON.stringify(run.differences), ran_at: db.fn.now() })
    .returning(['day', 'status', 'checked_processor', 'checked_ledger', 'differences', 'error', 'ran_at']);
  return { ...row, day: run.day };
}

export async function runOf(db: Q, day: string): Promise<RunRow | undefined> {
  return db('reconciliation_runs')
    .where({ day })
    .first('status', 'checked_processor', 'checked_ledger', 'differences', 'error', 'ran_at', db.raw("to_char(day, 'YYYY-MM-DD') as day"));
}

/** Days whose last run found differences, oldest first, with how many. */
export async function daysWithDifferences(db: Q): Promise<Array<{ day: string; n: number }>> {
  const rows = await db('reconciliation_runs')
    .where({ status: 'differences' })
    .orderBy('day')
    .select(db.raw("to_char(day, 'YYYY-MM-DD') as day"), db.raw('jsonb_array_length(differences) as n'));
  return rows.map((r: { day: string; n: number }) => ({ day: r.day, n: Number(r.n) }));
}

/** The latest run's number of differences (null: no run yet). */
export async function latestDifferences(db: Q): Promise<number | null> {
  const r = await db('reconciliation_runs').orderBy('ran_at', 'desc').first(db.raw('jsonb_array_length(differences) as n'));
  return r ? Number(r.n) : null;
}

const CURSOR = 'processor_events';

/** The newest processor event time the catch-up has seen. */
export async function eventCursor(db: Q): Promise<Date | null> {
  const r = await db('payment_sync_state').where({ key: CURSOR }).first('value');
  return r ? new Date(r.value) : null;
}

/** Moves the cursor forward only (two overlapping runs never move it back). */
export async function advanceEventCursor(db: Q, to: Date): Promise<void> {
  await db.raw(
    `insert into payment_sync_state (key, value) values (?, ?)
     on conflict (key) do update set value = greatest(payment_sync_state.value, excluded.value), updated_at = now()`,
    [CURSOR, to],
  );
}
