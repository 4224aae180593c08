import { defineRoutes, idParams, route } from '../../http/define-routes';
import type { AppContext } from '../../context';
import * as repo from './notifications.repo';
import {
  archivedResponse,
  deletedResponse,
  idsBody,
  idsFrom,
  listQuery,
  listResponse,
  toRead,
  updatedResponse,
} from './notifications.schemas';
import { updatesUnreadCount } from './notifications.service';

const idsConsumes = { mediaType: 'application/json', schema: idsBody };
const IDS_NOTE = '`ids` must be a non-empty array of uuids (else 400 `ids array is required`). Ids that are not the caller\'s are ignored; the count says how many rows changed.';

// Reads publish no event and write no audit entry; no operation marks a notification unread.
/**
 * The /notifications route table. The list carries the campaign-updates feed's unread count:
 * src/modules/index.ts passes the feed's counter in, since the feed notifies through this module.
 */
export function notificationsRoutes(feedUnreadCount: (ctx: AppContext, userId: string) => Promise<number>) {
  return defineRoutes(
    '/notifications',
    [
      route({
        method: 'get',
        path: '/',
        summary: "The caller's notifications, newest first",
        description:
          '`archived=true` returns the archive; any other value the active ones. `unreadCount` counts unread, non-archived rows; `updatesUnreadCount` is the campaign-updates feed\'s unread count, null when that count failed.',
        auth: 'required',
        query: listQuery,
        response: listResponse,
        handler: async ({ ctx, actor, query }) => {
          const userId = actor.userId;
          const [rows, unreadCount, updates] = await Promise.all([
            repo.list(ctx.db, userId, query.archived === 'true', query.limit),
            repo.unreadCount(ctx.db, userId),
            updatesUnreadCount(ctx, userId, feedUnreadCount),
          ]);
          return { notifications: rows.map(toRead), unreadCount, updatesUnreadCount: updates };
        },
      }),
      route({
        method: 'patch',
        path: '/mark-read',
        summary: 'Mark notifications read',
        description: IDS_NOTE,
        auth: 'required',
        consumes: idsConsumes,
        response: updatedResponse,
        handler: async ({ ctx, actor, body }) => ({ success: true, updated: await repo.markRead(ctx.db, actor.userId, idsFrom(body)) }),
      }),
      route({
        method: 'put',
        path: '/read-all',
        summary: "Mark all the caller's notifications read",
        auth: 'required',
        response: updatedResponse,
        handler: async ({ ctx, actor }) => ({ success: true, updated: await repo.markRead(ctx.db, actor.userId, 'all') }),
      }),
      route({
        method: 'put',
        path: '/:id/read',
        summary: 'Mark one notification read',
        description: "An unknown id, another user's or an already read one answers `updated: 0`.",
        auth: 'required',
        params: idParams,
        response: updatedResponse,
        handler: async ({ ctx, actor, params }) => ({ success: true, updated: await repo.markRead(ctx.db, actor.userId, [params.id]) }),
      }),
      route({
        method: 'patch',
        path: '/archive',
        summary: 'Archive notifications (and mark them read)',
        description: IDS_NOTE,
        auth: 'required',
        consumes: idsConsumes,
        response: archivedResponse,
        handler: async ({ ctx, actor, body }) => ({ success: true, archived: await repo.archive(ctx.db, actor.userId, idsFrom(body)) }),
      }),
      route({
        method: 'delete',
        path: '/',
        summary: 'Delete notifications',
        description: IDS_NOTE,
        auth: 'required',
        consumes: idsConsumes,
        response: deletedResponse,
        handler: async ({ ctx, actor, body }) => ({ success: true, deleted: await repo.remove(ctx.db, actor.userId, idsFrom(body)) }),
      }),
    ],
    { tag: 'notifications' },
  );
}
