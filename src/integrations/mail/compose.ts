import type { Knex } from 'knex';
import { enqueue } from '../../infra/jobs';
import { insertOutbox } from './outbox.repo';
import { escapeHtml } from './templates';
import type { Locale } from './types';

/** A mail a module writes itself (receipts, notifications): plain paragraphs, an optional button, footer lines. */
export interface ComposedMail {
  to: string;
  /** Names the kind of mail in the outbox (e.g. donation_receipt). */
  template: string;
  locale: Locale;
  subject: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  /** Small print under the body (e.g. "This is not a tax receipt"). */
  footer?: string[];
  /** Links in the small print (an unsubscribe link, the preferences page). */
  links?: Array<{ label: string; url: string }>;
  /** Extra headers of the message (e.g. List-Unsubscribe), kept in the outbox with it. */
  headers?: Record<string, string>;
}

export function renderComposed(m: Omit<ComposedMail, 'to' | 'template'>): { subject: string; text: string; html: string } {
  const links = m.links ?? [];
  const text =
    [...m.paragraphs, ...(m.action ? [`${m.action.label}: ${m.action.url}`] : []), ...(m.footer ?? []), ...links.map((l) => `${l.label}: ${l.url}`)].join('\n\n') + '\n';
  const button = m.action
    ? `<p><a href="${escapeHtml(m.action.url)}" style="display:inline-block;padding:10px 18px;background:#1a7f5a;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(m.action.label)}</a></p>`
    : '';
  const footer = (m.footer ?? []).map((f) => `<p style="font-size:12px;color:#666">${escapeHtml(f)}</p>`).join('');
  const linkLine = links.length
    ? `<p style="font-size:12px;color:#666">${links.map((l) => `<a href="${escapeHtml(l.url)}" style="color:#666">${escapeHtml(l.label)}</a>`).join(' · ')}</p>`
    : '';
  const body = m.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') + button + footer + linkLine;
  const html =
    `<!doctype html><html lang="${m.locale}"><head><meta charset="utf-8"><title>${escapeHtml(m.subject)}</title></head>` +
    `<body style="font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.5">${body}</body></html>`;
  return { subject: m.subject, text, html };
}

/** Queues a composed mail in the caller's transaction (outbox row + job), like queueMail. */
export async function queueComposedMail(db: Knex | Knex.Transaction, mail: ComposedMail, queue = 'mail'): Promise<string> {
  const rendered = renderComposed(mail);
  const id = await insertOutbox(db, { to: mail.to, template: mail.template, locale: mail.locale, ...rendered, headers: mail.headers ?? null });
  await enqueue(db, queue, { outbox_id: id }, { maxAttempts: 5 });
  return id;
}
