import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { queueComposedMail, toLocale } from '../../integrations/mail';
import { plainText } from '../../infra/plain-text';
import { findNotification, type NotificationCatalog } from '../notifications';
import { emailEnabled } from './preferences.service';
import { MAIL_WORDS } from './preferences.types';
import * as reads from './preferences.reads';
import { mintUnsubscribeToken, unsubscribeUrl } from './unsubscribe.tokens';

/**
 * The mail of one notification (the `notifications.mail` job, atomic with its outbox row): sent
 * only to an active account with a verified address whose toggle for the type is on, in the
 * recipient's locale, with an unsubscribe link for that type in the footer and in the
 * List-Unsubscribe header.
 */
export async function sendNotificationMail(ctx: AppContext, types: NotificationCatalog, payload: Record<string, unknown>, trx: Knex.Transaction): Promise<void> {
  const n = await findNotification(trx, String(payload.notification_id ?? ''));
  if (!n) return;
  const user = await reads.recipient(trx, n.user_id);
  if (!user || user.status !== 'active' || !user.email_verified) return;
  if (!(await emailEnabled(trx, types, user.id, n.type))) return;
  const locale = toLocale(user.locale);
  const words = MAIL_WORDS[locale];
  const category = types.hasToggle(n.type) ? n.type : 'all';
  const unsubscribe = unsubscribeUrl(ctx.config.SITE_URL, await mintUnsubscribeToken(ctx.db, user.id, category));
  const message = plainText(n.message) ?? '';
  await queueComposedMail(trx, {
    to: user.email,
    template: `notification:${n.type}`,
    locale,
    subject: n.title,
    paragraphs: message ? [message] : [],
    action: n.action_url && n.action_label ? { label: n.action_label, url: n.action_url } : undefined,
    footer: [category === 'all' ? words.generic : words.because(types.label(locale, category))],
    links: [
      { label: category === 'all' ? words.unsubscribeAll : words.unsubscribe, url: unsubscribe },
      { label: words.manage, url: `${ctx.config.SITE_URL}/settings/notifications` },
    ],
    headers: { 'List-Unsubscribe': `<${unsubscribe}>` },
  });
}
