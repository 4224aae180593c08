import type { Knex } from 'knex';
import type { NotificationCatalog, NotificationType } from '../notifications';
import type { UnsubscribeCategory } from './preferences.types';
import * as repo from './preferences.repo';

export type EmailToggles = Partial<Record<NotificationType, boolean>>;

/** Every toggled type's email toggle, in list order; a type never switched is on. */
export async function emailToggles(db: Knex | Knex.Transaction, types: NotificationCatalog, userId: string): Promise<EmailToggles> {
  const s = await repo.stored(db, userId);
  return Object.fromEntries(types.toggled.map((t) => [t, s[t] !== false])) as EmailToggles;
}

/** Whether a notification of `type` goes out by email; types outside the toggles follow "all". */
export async function emailEnabled(db: Knex | Knex.Transaction, types: NotificationCatalog, userId: string, type: string): Promise<boolean> {
  const toggles = await emailToggles(db, types, userId);
  return types.hasToggle(type) ? toggles[type] === true : Object.values(toggles).some(Boolean);
}

export async function setToggles(db: Knex | Knex.Transaction, types: NotificationCatalog, userId: string, changes: EmailToggles): Promise<EmailToggles> {
  const known = Object.fromEntries(Object.entries(changes).filter(([k, v]) => types.hasToggle(k) && typeof v === 'boolean')) as Record<string, boolean>;
  if (Object.keys(known).length) await repo.merge(db, userId, known);
  return emailToggles(db, types, userId);
}

/** Switches one category (or every type) on or off. */
export async function setCategory(db: Knex | Knex.Transaction, types: NotificationCatalog, userId: string, category: UnsubscribeCategory, on: boolean): Promise<void> {
  const switched = category === 'all' ? types.toggled : [category];
  await repo.merge(db, userId, Object.fromEntries(switched.map((t) => [t, on])));
}

/** Subscribed to a category: its toggle is on ("all": any toggle is on). */
export async function subscribedTo(db: Knex | Knex.Transaction, types: NotificationCatalog, userId: string, category: UnsubscribeCategory): Promise<boolean> {
  const toggles = await emailToggles(db, types, userId);
  return category === 'all' ? Object.values(toggles).some(Boolean) : toggles[category] === true;
}
