import { z } from 'zod';
import type { AppContext } from '../../context';
import { defineRoutes, route } from '../../http/define-routes';
import { runChecks } from './trust.checks';

const KEY = 'trust:status';
/** The spec's cache: up to 15 minutes. A problem is re-checked after a minute, so recovery shows soon. */
const TTL_OK_SECONDS = 15 * 60;
const TTL_PROBLEM_SECONDS = 60;

const status = z.enum(['operational', 'degraded', 'outage']);
const trustResponse = z.object({
  data: z.object({
    status,
    components: z.array(z.object({ name: z.enum(['database', 'processor', 'mail', 'queue']), status })),
    updated_at: z.string().describe('when the checks ran'),
  }),
});
type TrustStatus = z.infer<typeof trustResponse>['data'];

async function trustStatus(ctx: AppContext): Promise<TrustStatus> {
  const hit = await ctx.cache.get<TrustStatus>(KEY);
  if (hit) return hit;
  const fresh: TrustStatus = { ...(await runChecks(ctx)), updated_at: new Date().toISOString() };
  await ctx.cache.set(KEY, fresh, fresh.status === 'operational' ? TTL_OK_SECONDS : TTL_PROBLEM_SECONDS);
  return fresh;
}

export default defineRoutes(
  '/trust',
  [
    route({
      method: 'get',
      path: '/status',
      summary: 'Trust centre: live status of the platform\'s components',
      description:
        'Checks the database (a query within 3 s; slower than 1 s is degraded), the payment processor (the sandbox is ' +
        'in-process; Stripe must accept a connection), mail (with SMTP_URL: the server accepts a connection and no mail ' +
        'waits over 15 minutes; without it mail is kept in the outbox by design) and the job queue (a due job waiting ' +
        'over 5 minutes is degraded, over 30 an outage). The whole is an outage when the database is down, degraded when ' +
        'any component is not operational. Cached 15 minutes while operational, 1 minute otherwise; `updated_at` says when the checks ran.',
      auth: 'none',
      response: trustResponse,
      handler: async ({ ctx }) => ({ data: await trustStatus(ctx) }),
    }),
  ],
  { tag: 'trust' },
);
