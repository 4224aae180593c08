import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { enqueue } from '../../infra/jobs';
import { findOutbox, insertOutbox, markAttemptFailed, markSent } from './outbox.repo';
import { renderMail } from './templates';
import type { Locale, MailTemplate } from './types';

export type { Locale, MailTemplate } from './types';
export { toLocale, requestLocale, LOCALES } from './types';
export { createMailer, type Mailer, type OutgoingMail } from './mailer';
export { queueComposedMail, renderComposed, type ComposedMail } from './compose';
export { eraseMailsTo, latestMailsTo, type SentMailRow } from './outbox.repo';

export const MAIL_QUEUE = 'mail';
const MAX_ATTEMPTS = 5;

export interface QueuedMail {
  to: string;
  template: MailTemplate;
  locale: Locale;
  /** Template variables, e.g. { link } or { code }. */
  vars: Record<string, string>;
}

/**
 * Queues a mail in the caller's transaction (outbox row + job); a worker sends it.
 * The mail is rendered here, so a bad template or variable fails the caller's change instead
 * of a job later, and the outbox row holds the exact subject, text and HTML that go out.
 */
export async function queueMail(db: Knex | Knex.Transaction, mail: QueuedMail): Promise<void> {
  const rendered = renderMail(mail.template, mail.locale, mail.vars);
  const id = await insertOutbox(db, { to: mail.to, template: mail.template, locale: mail.locale, ...rendered });
  await enqueue(db, MAIL_QUEUE, { outbox_id: id }, { maxAttempts: MAX_ATTEMPTS });
}

/** The 'mail' job: sends one outbox row through the context's mailer and records the result. */
export async function sendQueuedMail(ctx: AppContext, payload: Record<string, unknown>, job: { attempts: number }): Promise<void> {
  const id = String(payload.outbox_id ?? '');
  const row = id ? await findOutbox(ctx.db, id) : undefined;
  if (!row || row.status === 'sent') return; // nothing to do (retried after success, or row gone)
  try {
    await ctx.mailer.send({
      to: row.to,
      from: ctx.config.MAIL_FROM,
      subject: row.subject,
      text: row.text,
      html: row.html,
      ...(row.headers ? { headers: row.headers } : {}),
    });
  } catch (err) {
    const message = String((err as Error)?.message ?? err);
    await markAttemptFailed(ctx.db, row.id, job.attempts, message, job.attempts >= MAX_ATTEMPTS);
    throw err; // the job queue retries with backoff
  }
  await markSent(ctx.db, row.id, job.attempts);
}
