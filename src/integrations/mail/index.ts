// CONTRACT STUB (owner: mail/verification work). Replace the body, keep the signature.
import type { Knex } from 'knex';

export type Locale = 'en' | 'ru' | 'uk' | 'es';
export type MailTemplate = 'email_verification' | 'private_contact_verification' | 'password_reset';

export interface QueuedMail {
  to: string;
  template: MailTemplate;
  locale: Locale;
  /** Template variables, e.g. { link } or { code }. */
  vars: Record<string, string>;
}

/** Queues a mail in the caller's transaction (outbox row + job); a worker renders and sends it. */
export async function queueMail(_db: Knex | Knex.Transaction, _mail: QueuedMail): Promise<void> {
  // stub
}
