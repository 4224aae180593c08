import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';

const flag = z.object({ key: z.string(), enabled: z.boolean(), updated_at: z.string().nullable() });

export default defineRoutes('/features', [
  route({
    method: 'get',
    path: '/',
    summary: 'The features.* flags, each reduced to key, enabled and updated_at',
    auth: 'required',
    response: z.object({ data: z.array(flag) }),
    handler: async ({ ctx }) => ({ data: await ctx.flags.list() }),
  }),
]);
