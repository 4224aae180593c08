import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { databaseReady } from './readiness-probe';

// Outside /api/v1 and not rate limited: load balancers and orchestrators poll these.
export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/healthz',
      summary: 'Liveness: the process is up',
      auth: 'none',
      response: z.object({ status: z.literal('ok') }),
      handler: () => ({ status: 'ok' as const }),
    }),
    route({
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: the database answers (503 within a second when it does not)',
      auth: 'none',
      errors: [503],
      response: z.object({ status: z.literal('ready') }),
      handler: async ({ db }) => {
        if (!(await databaseReady(db))) throw new ApiError(503, 'Not ready', 'The database is unreachable or too slow');
        return { status: 'ready' as const };
      },
    }),
  ],
  { root: true, tag: 'operations' },
);
