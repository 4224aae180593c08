import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { permissionsFor } from '../../http/permissions';

export default defineRoutes(
  '/me',
  [
    route({
      method: 'get',
      path: '/capabilities',
      summary: 'Roles and permissions of the calling credential (use it to check a bearer credential)',
      description:
        'Platform permissions are `platform.<role>` plus `api_keys.read`; `api_keys.manage` only when the owner signed in themself (session cookies or an ID token; not an API key, not staff viewing as the user). Organization permissions are per organization and not listed here.',
      auth: 'required',
      response: z.object({
        data: z.object({
          user_id: z.string(),
          credential: z.enum(['session', 'api_key', 'id_token']),
          roles: z.array(z.string()),
          permissions: z.array(z.string()),
        }),
      }),
      handler: ({ actor }) => ({
        data: {
          user_id: actor.userId,
          credential: actor.credential,
          roles: [...actor.roles],
          permissions: permissionsFor(actor),
        },
      }),
    }),
  ],
  { tag: 'me' },
);
