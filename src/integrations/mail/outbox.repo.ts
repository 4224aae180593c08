import type { Knex } from 'knex';

export interface OutboxRow {
  id: string;
  to: string;
  template: string;
  locale: string;
  subject: string;
  text: string;
  html: string;
  /** Extra message headers (List-Unsubscribe), null for most mail. */
  headers: Record<string, string> | null;
  status: 'queued' | 'sent' | 'failed';
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Date;
}

export async function insertOutbox(
  db: Knex | Knex.Transaction,
  row: Pick<OutboxRow, 'to' | 'template' | 'locale' | 'subject' | 'text' | 'html'> & { headers?: Record<string, string> | null },
): Promise<string> {
  const { headers, ...rest } = row;
  const [r] = await db('mail_outbox')
    .insert({ ...rest, ...(headers ? { headers: JSON.stringify(headers) } : {}), status: 'queued' })
    .returning('id');
  return r.id as string;
}

export async function findOutbox(db: Knex, id: string): Promise<OutboxRow | undefined> {
  return db('mail_outbox').where({ id }).first();
}

export async function markSent(db: Knex, id: string, attempts: number): Promise<void> {
  await db('mail_outbox').where({ id }).update({ status: 'sent', attempts, sent_at: db.fn.now(), last_error: null });
}

export async function markAttemptFailed(db: Knex, id: string, attempts: number, error: string, final: boolean): Promise<void> {
  await db('mail_outbox')
    .where({ id })
    .update({ status: final ? 'failed' : 'queued', attempts, last_error: error.slice(0, 2000) });
}

export interface SentMailRow {
  subject: string;
  text: string;
  status: string;
  created_at: Date;
  sent_at: Date | null;
}

/** Newest first, by address case-insensitively (the outbox's lower("to") index). */
export async function latestMailsTo(db: Knex, email: string, count: number): Promise<SentMailRow[]> {
  return db('mail_outbox')
    .whereRaw('lower("to") = lower(?)', [email])
    .orderBy('created_at', 'desc')
    .limit(count)
    .select('subject', 'text', 'status', 'created_at', 'sent_at');
}

/**
 * Privacy erasure: the outbox's copies of mails to an address (they hold the address, and often
 * the name, in their text). Deleting a queued row also cancels its send: the job finds no row.
 */
export async function eraseMailsTo(db: Knex, email: string): Promise<number> {
  return db('mail_outbox').whereRaw('lower("to") = lower(?)', [email]).delete();
}
