import { z } from 'zod';
import { defineRoutes, route, uuid } from '../../http/define-routes';
import { notFound } from '../../http/errors';
import type { NotificationCatalog } from '../notifications';
import { emailToggles, setToggles } from './preferences.service';

const params = z.object({ id: z.union([z.literal('me'), uuid]).describe("`me` or the caller's own id") });

/** `me` or the caller's own id; any other account's preferences do not exist for the caller. */
function ownId(id: string, userId: string): string {
  if (id !== 'me' && id.toLowerCase() !== userId.toLowerCase()) throw notFound('Preferences');
  return userId;
}

const DOC = 'Email toggles per notification type (a type never switched is on). Which notifications also produce email is decided here, not under /notifications. `me` or the caller\'s own id; another id answers 404.';

/** The preferences route table, over the notification types every module declares (src/modules/index.ts passes them in). */
export function preferencesRoutes(types: NotificationCatalog) {
  const toggles = z.object(Object.fromEntries(types.toggled.map((t) => [t, z.boolean()])) as Record<string, z.ZodBoolean>);
  const response = z.object({ data: z.object({ email: toggles }) });
  const patchBody = z.object({ email: toggles.partial().optional() });
  return defineRoutes(
    '',
    [
      route({
        method: 'get',
        path: '/users/:id/preferences',
        summary: "The caller's notification preferences",
        description: DOC,
        auth: 'required',
        params,
        response,
        errors: [404],
        handler: async ({ ctx, actor, params }) => ({ data: { email: await emailToggles(ctx.db, types, ownId(params.id, actor.userId)) } }),
      }),
      route({
        method: 'patch',
        path: '/users/:id/preferences',
        summary: "Change the caller's notification preferences",
        description: `${DOC} Partial: only the types sent change; unknown types are ignored. Answers every toggle after the change.`,
        auth: 'required',
        params,
        body: patchBody,
        response,
        errors: [404],
        handler: async ({ ctx, actor, params, body }) => ({
          data: { email: await setToggles(ctx.db, types, ownId(params.id, actor.userId), body.email ?? {}) },
        }),
      }),
    ],
    { tag: 'preferences' },
  );
}
