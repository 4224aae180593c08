import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import { mintCursor, readCursor } from './feed.cursor';
import * as repo from './feed.repo';
import * as reads from './feed.updates.reads';
import type { FeedRow } from './feed.updates.reads';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/**
 * An update posted before the relationship began reads as read, at the moment the relationship
 * began (the reader was never asked to catch up on it).
 */
function toItem(r: FeedRow) {
  const before = new Date(r.created_at) < new Date(r.since);
  const readAt = r.mark_at ?? (before ? r.since : null);
  return {
    id: r.id,
    fundraiser_id: r.fundraiser_id,
    type: 'update' as const,
    title: r.title,
    body: r.body,
    language: r.language,
    like_count: Number(r.like_count),
    liked_by_me: Boolean(r.liked_by_me),
    created_at: iso(r.created_at)!,
    edited_at: iso(r.edited_at),
    is_read: readAt !== null,
    read_at: iso(readAt),
    author: { id: r.author_id, name: r.author_name, avatar: r.author_avatar },
    fundraiser: { id: r.fundraiser_id, title: r.f_title, slug: r.f_slug, cover_image: r.f_cover_image },
  };
}

export async function feedPage(ctx: AppContext, userId: string, q: { limit: number; cursor?: string; lang?: string | null }) {
  const after = q.cursor ? await readCursor(ctx.db, userId, q.cursor) : null;
  // One row beyond the page says whether a next page exists.
  const [rows, unread_count] = await Promise.all([
    reads.page(ctx.db, userId, q.limit + 1, after, q.lang ?? null),
    reads.unreadCount(ctx.db, userId),
  ]);
  const more = rows.length > q.limit;
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  const next_cursor = more && last ? await mintCursor(ctx.db, userId, { ts: last.created_key, id: last.id }) : null;
  return { data: items.map(toItem), next_cursor, unread_count };
}

export async function readOne(ctx: AppContext, userId: string, updateId: string) {
  const hit = await reads.inFeed(ctx.db, userId, updateId);
  if (!hit) throw new ApiError(404, 'Not found', 'Update not found');
  const before = new Date(hit.created_at) < new Date(hit.since);
  const updated = before ? 0 : await repo.markRead(ctx.db, userId, updateId);
  return { success: true, updated, unread_count: await reads.unreadCount(ctx.db, userId) };
}

export async function readAll(ctx: AppContext, userId: string, until: string | null) {
  const updated = await repo.markAllRead(ctx.db, userId, until);
  return { success: true, updated, unread_count: await reads.unreadCount(ctx.db, userId) };
}

/**
 * The badge count GET /notifications shows as updatesUnreadCount. An object, so a test can
 * make the count fail and see the notifications list answer null for it.
 */
export const campaignUpdatesFeed = {
  unreadCount: (ctx: AppContext, userId: string): Promise<number> => reads.unreadCount(ctx.db, userId),
};
