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
      summary: 'Readiness: the database answers and is migrated, and the process is not draining (503 otherwise, within a second)',
      auth: 'none',
      errors: [503],
      response: z.object({ status: z.literal('ready') }),
      handler: async ({ db, ctx }) => {
        // From SIGTERM on: the balancer stops sending new requests while in-flight ones finish.
        if (ctx.lifecycle.draining) throw new ApiError(503, 'Not ready', 'The process is shutting down');
        if (!(await databaseReady(db))) throw new ApiError(503, 'Not ready', 'The database is unreachable, too slow, or has migrations pending');
        return { status: 'ready' as const };
      },
    }),
  ],
  { root: true, tag: 'operations' },
);
