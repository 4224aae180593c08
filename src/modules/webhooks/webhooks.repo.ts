import type { Knex } from 'knex';
import type { PaymentEvent } from '../../integrations/payments';

/**
 * Claims an event id for this transaction. A concurrent delivery of the same id waits on the
 * unique key until this transaction ends: it then sees the row (duplicate) or, after a
 * rollback, claims it itself. Answers false when the event was already processed. The event's
 * kind and the row it names are kept for check-ledger.
 */
export async function claimEvent(trx: Knex.Transaction, event: PaymentEvent): Promise<boolean> {
  const rows = await trx('processed_webhook_events')
    .insert({
      event_id: event.id,
      type: event.processor_type,
      outcome: 'processing',
      kind: event.kind,
      ref_kind: event.ref?.kind ?? null,
      ref_id: event.ref?.id ?? null,
    })
    .onConflict('event_id')
    .ignore()
    .returning('event_id');
  return rows.length > 0;
}

export async function recordOutcome(trx: Knex.Transaction, eventId: string, outcome: string): Promise<void> {
  await trx('processed_webhook_events').where({ event_id: eventId }).update({ outcome });
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
