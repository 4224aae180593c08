import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { publishReadiness } from './readiness.service';

const readinessResponse = z.object({
  data: z.object({
    ready: z.boolean().describe('true when no hard blocker is open'),
    checklist: z
      .array(z.object({ key: z.string(), ok: z.boolean(), blocker: z.boolean().describe('true: publishing is refused until ok'), message: z.string() }))
      .nullable(),
    migration_pending: z.boolean(),
  }),
});

export default defineRoutes(
  '/users/me',
  [
    route({
      method: 'get',
      path: '/publish-readiness',
      summary: 'What the caller must do before publishing a campaign',
      description:
        'Hard blockers (blocker: true) are the publish gate\'s profile checks: profile_name, email_verified, ' +
        'private_contact_verified. Soft suggestions (blocker: false): avatar, profile_slug. `ready` is true when every ' +
        'blocker is ok. Each campaign is also checked when published (at least one image, content review). While the ' +
        'schema behind the checklist is not migrated: `{ ready: true, checklist: null, migration_pending: true }`.',
      auth: 'required',
      response: readinessResponse,
      handler: async ({ res, ctx, actor }) => {
        res.setHeader('Cache-Control', 'private, no-store');
        return { data: await publishReadiness(ctx, actor.userId) };
      },
    }),
  ],
  { tag: 'users' },
);
