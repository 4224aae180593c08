import type { Knex } from 'knex';

/**
 * Claims an event id for this transaction. A concurrent delivery of the same id waits on the
 * unique key until this transaction ends: it then sees the row (duplicate) or, after a
 * rollback, claims it itself. Answers false when the event was already processed.
 */
export async function claimEvent(trx: Knex.Transaction, eventId: string, type: string): Promise<boolean> {
  const rows = await trx('processed_webhook_events')
    .insert({ event_id: eventId, type, outcome: 'processing' })
    .onConflict('event_id')
    .ignore()
    .returning('event_id');
  return rows.length > 0;
}

export async function recordOutcome(trx: Knex.Transaction, eventId: string, outcome: string): Promise<void> {
  await trx('processed_webhook_events').where({ event_id: eventId }).update({ outcome });
}
