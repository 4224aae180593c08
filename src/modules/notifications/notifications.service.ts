import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { enqueue } from '../../infra/jobs';
import { toLocale, type Locale } from '../../integrations/mail';
import type { NotificationType } from './notification-types';
import { userLocale } from './notifications.reads';
import * as repo from './notifications.repo';

export type NotificationPriority = 'low' | 'normal' | 'high';

/** One job per new notification: the preferences module decides whether it becomes a mail. */
export const NOTIFICATION_MAIL_QUEUE = 'notifications.mail';

export interface NotifyInput {
  user_id: string;
  /** A type some module declares (its module file adds it to NotificationTypeRegistry). */
  type: NotificationType;
  category: string;
  priority?: NotificationPriority;
  title: string;
  /** May hold a little HTML (a link); the caller escapes every interpolated value. */
  message: string;
  icon?: string | null;
  action_url?: string | null;
  action_label?: string | null;
  metadata?: Record<string, unknown>;
  /** Names the fact notified (e.g. `donation_received:<donation id>`): a second notify with it changes nothing. */
  dedupe_key: string;
}

/**
 * Writes one in-app notification in the caller's transaction, once per dedupe key, and queues
 * its mail (sent only when the recipient's preference toggle for the type is on). Answers the
 * new id, or null when the fact was already notified or the recipient no longer exists.
 */
export async function notify(trx: Knex.Transaction, n: NotifyInput): Promise<string | null> {
  if ((await userLocale(trx, n.user_id)) === undefined) return null;
  const id = await repo.insertOnce(trx, {
    user_id: n.user_id,
    type: n.type,
    category: n.category,
    priority: n.priority ?? 'normal',
    title: n.title,
    message: n.message,
    icon: n.icon ?? null,
    action_url: n.action_url ?? null,
    action_label: n.action_label ?? null,
    metadata: n.metadata ?? {},
    dedupe_key: n.dedupe_key,
  });
  // Queued with the notification, so its mail is neither lost nor sent for a rolled-back one.
  if (id) await enqueue(trx, NOTIFICATION_MAIL_QUEUE, { notification_id: id }, { maxAttempts: 5 });
  return id;
}

/** The recipient's locale (users.locale), English when unknown. */
export async function recipientLocale(trx: Knex.Transaction, userId: string): Promise<Locale> {
  return toLocale((await userLocale(trx, userId)) ?? null);
}

/**
 * Unread items of the caller's campaign-updates feed, counted by the feed module (`count`); a
 * failing count answers null (the list still answers) as the spec asks.
 */
export async function updatesUnreadCount(
  ctx: AppContext,
  userId: string,
  count: (ctx: AppContext, userId: string) => Promise<number>,
): Promise<number | null> {
  try {
    return await count(ctx, userId);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'campaign-updates unread count failed');
    return null;
  }
}
