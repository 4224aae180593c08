import type { Knex } from 'knex';
import { queryRows } from '../../db/knex';
import type { PaymentEvent } from '../../integrations/payments';

// A fixed text run past knex's builder and runner, a measurable part of a settlement's CPU.
const CLAIM_SQL = `insert into processed_webhook_events (event_id, type, outcome, kind, ref_kind, ref_id)
  values (?, ?, 'applied', ?, ?, ?) on conflict (event_id) do nothing returning event_id`;

/**
 * Claims an event id for this transaction. A concurrent delivery of the same id waits on the
 * unique key until this transaction ends: it then sees the row (duplicate) or, after a
 * rollback, claims it itself. Answers false when the event was already processed. The event's
 * kind and the row it names are kept for check-ledger. The row is written with the common outcome,
 * 'applied': nobody sees it before this transaction commits, and processEvent corrects it first
 * when the handler answers otherwise (a settlement saves the round trip of an update).
 */
export async function claimEvent(trx: Knex.Transaction, event: PaymentEvent): Promise<boolean> {
  const rows = await queryRows(trx, CLAIM_SQL, [event.id, event.processor_type, event.kind, event.ref?.kind ?? null, event.ref?.id ?? null]);
  return rows.length > 0;
}

const OUTCOME_SQL = 'update processed_webhook_events set outcome = ? where event_id = ?';

export async function recordOutcome(trx: Knex.Transaction, eventId: string, outcome: string): Promise<void> {
  await queryRows(trx, OUTCOME_SQL, [outcome, eventId]);
}

/**
 * Records a signed event the adapter could not read, once: true the first time its id is seen
 * (so it is logged once however often the processor redelivers it).
 */
export async function recordUnreadable(db: Knex, eventId: string, type: string | null): Promise<boolean> {
  const rows = await db('processed_webhook_events')
    .insert({ event_id: eventId, type: type ?? 'unknown', outcome: 'unreadable' })
    .onConflict('event_id')
    .ignore()
    .returning('event_id');
  return rows.length > 0;
}

/**
 * Every processed event the processor reported as a successful payment for a row of `refKind`
 * (a gift, a tip...), as a subquery with columns event_id, ref_id, processed_at: what a money
 * module's integrity check matches against its rows.
 */
export function paymentSuccessesSql(db: Knex | Knex.Transaction, refKind: string): Knex.Raw {
  return db.raw(
    `(select event_id, ref_id, processed_at from processed_webhook_events
       where kind = 'PaymentSucceeded' and ref_kind = ? and ref_id is not null)`,
    [refKind],
  );
}
