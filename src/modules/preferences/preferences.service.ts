import type { Knex } from 'knex';
import { NOTIFICATION_TYPES, isNotificationType, type NotificationType, type UnsubscribeCategory } from './preferences.types';
import * as repo from './preferences.repo';

export type EmailToggles = Record<NotificationType, boolean>;

/** Every type's email toggle; a type never switched is on. */
export async function emailToggles(db: Knex | Knex.Transaction, userId: string): Promise<EmailToggles> {
  const s = await repo.stored(db, userId);
  return Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, s[t] !== false])) as EmailToggles;
}

/** Whether a notification of `type` goes out by email; types outside the toggles follow "all". */
export async function emailEnabled(db: Knex | Knex.Transaction, userId: string, type: string): Promise<boolean> {
  const toggles = await emailToggles(db, userId);
  return isNotificationType(type) ? toggles[type] : Object.values(toggles).some(Boolean);
}

export async function setToggles(db: Knex | Knex.Transaction, userId: string, changes: Partial<EmailToggles>): Promise<EmailToggles> {
  const known = Object.fromEntries(Object.entries(changes).filter(([k, v]) => isNotificationType(k) && typeof v === 'boolean')) as Record<string, boolean>;
  if (Object.keys(known).length) await repo.merge(db, userId, known);
  return emailToggles(db, userId);
}

/** Switches one category (or every type) on or off. */
export async function setCategory(db: Knex | Knex.Transaction, userId: string, category: UnsubscribeCategory, on: boolean): Promise<void> {
  const types = category === 'all' ? NOTIFICATION_TYPES : [category];
  await repo.merge(db, userId, Object.fromEntries(types.map((t) => [t, on])));
}

/** Subscribed to a category: its toggle is on ("all": any toggle is on). */
export async function subscribedTo(db: Knex | Knex.Transaction, userId: string, category: UnsubscribeCategory): Promise<boolean> {
  const toggles = await emailToggles(db, userId);
  return category === 'all' ? Object.values(toggles).some(Boolean) : toggles[category];
}
