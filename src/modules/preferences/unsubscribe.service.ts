import type { AppContext } from '../../context';
import type { NotificationCatalog } from '../notifications';
import { queueComposedMail, toLocale } from '../../integrations/mail';
import * as reads from './preferences.reads';
import { setCategory, subscribedTo } from './preferences.service';
import { REQUEST_MAIL, type UnsubscribeCategory } from './preferences.types';
import { invalidToken, mintUnsubscribeToken, readUnsubscribeToken, unsubscribeUrl } from './unsubscribe.tokens';

/** `ada@example.org` -> `a***@example.org`: enough to recognise, not enough to harvest. */
export function emailHint(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

async function holder(ctx: AppContext, types: NotificationCatalog, token: unknown) {
  const t = await readUnsubscribeToken(ctx.db, types, token);
  const user = await reads.recipient(ctx.db, t.userId);
  // A token of a deleted account is as good as a forged one.
  if (!user) throw invalidToken();
  return { ...t, user };
}

async function state(ctx: AppContext, types: NotificationCatalog, userId: string, email: string, category: UnsubscribeCategory) {
  return { data: { email_hint: emailHint(email), category, subscribed: await subscribedTo(ctx.db, types, userId, category) } };
}

export async function preview(ctx: AppContext, types: NotificationCatalog, token: string | undefined) {
  const h = await holder(ctx, types, token);
  return state(ctx, types, h.userId, h.user.email, h.category);
}

export async function setSubscribed(ctx: AppContext, types: NotificationCatalog, token: string, on: boolean) {
  const h = await holder(ctx, types, token);
  await setCategory(ctx.db, types, h.userId, h.category, on);
  return state(ctx, types, h.userId, h.user.email, h.category);
}

export async function requestLink(ctx: AppContext, email: string) {
  const user = await reads.userByEmail(ctx.db, email);
  if (user) {
    const locale = toLocale(user.locale);
    const w = REQUEST_MAIL[locale];
    const url = unsubscribeUrl(ctx.config.SITE_URL, await mintUnsubscribeToken(ctx.db, user.id, 'all'));
    await queueComposedMail(ctx.db, {
      to: user.email,
      template: 'unsubscribe_request',
      locale,
      subject: w.subject,
      paragraphs: [w.intro],
      action: { label: w.action, url },
      footer: [w.outro],
      headers: { 'List-Unsubscribe': `<${url}>` },
    });
  }
  return { message: 'If an account uses this address, an unsubscribe link is on its way.' };
}
