import { z } from 'zod';
import { ApiError } from '../../http/errors';
import type { NotificationRow } from './notifications.repo';

export const MAX_IDS = 500;

export const notificationRead = z.object({
  id: z.string(),
  type: z.string(),
  category: z.string(),
  priority: z.enum(['low', 'normal', 'high']),
  title: z.string(),
  message: z.string().describe('May contain a little HTML (a link to the campaign); interpolated values are escaped.'),
  icon: z.string().nullable(),
  action_url: z.string().nullable(),
  action_label: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  is_read: z.boolean(),
  is_archived: z.boolean(),
  created_at: z.string(),
}).meta({ id: 'Notification' });

export function toRead(r: NotificationRow): z.infer<typeof notificationRead> {
  return {
    id: r.id,
    type: r.type,
    category: r.category,
    priority: r.priority as 'low' | 'normal' | 'high',
    title: r.title,
    message: r.message,
    icon: r.icon,
    action_url: r.action_url,
    action_label: r.action_label,
    metadata: r.metadata ?? {},
    is_read: r.is_read,
    is_archived: r.is_archived,
    created_at: new Date(r.created_at).toISOString(),
  };
}

const first = (v: unknown) => (Array.isArray(v) ? v[0] : v);

/** 1..100; larger is 100; missing, zero, negative or non-numeric is 20 (the list reads' clamping). */
const limit = z.preprocess((v) => {
  const s = first(v);
  const n = typeof s === 'string' && s.trim() !== '' ? Number(s) : NaN;
  if (!Number.isFinite(n) || n < 1) return 20;
  return Math.min(100, Math.floor(n));
}, z.number().int().min(1).max(100).describe('1 to 100, default 20'));

export const listQuery = z.object({
  limit: limit.optional().default(20),
  archived: z
    .preprocess((v) => first(v), z.string().max(20).optional())
    .describe('`true` returns the archive; any other value returns active notifications'),
});

export const listResponse = z.object({
  notifications: z.array(notificationRead),
  unreadCount: z.number().int(),
  updatesUnreadCount: z.number().int().nullable(),
});

const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The documented body of the `{ ids }` operations (checked by `idsFrom`, which answers the spec's error). */
export const idsBody = z.object({ ids: z.array(z.guid()).min(1).max(MAX_IDS) });

/**
 * `ids` must be a non-empty array of uuids: anything else is 400 `ids array is required` (the
 * spec's own error), not the generic validation failure.
 */
export function idsFrom(body: unknown): string[] {
  const ids = (body as { ids?: unknown } | null | undefined)?.ids;
  const bad = (message: string) => new ApiError(400, 'ids array is required', message);
  if (!Array.isArray(ids) || ids.length === 0) throw bad('Send `ids`: a non-empty array of notification ids');
  if (ids.length > MAX_IDS) throw bad(`Send at most ${MAX_IDS} ids at a time`);
  if (!ids.every((id) => typeof id === 'string' && uuidRe.test(id))) throw bad('Every id in `ids` must be a uuid');
  return [...new Set(ids.map((id: string) => id.toLowerCase()))];
}

export const updatedResponse = z.object({ success: z.boolean(), updated: z.number().int() });
export const archivedResponse = z.object({ success: z.boolean(), archived: z.number().int() });
export const deletedResponse = z.object({ success: z.boolean(), deleted: z.number().int() });
