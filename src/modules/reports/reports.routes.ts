import { z } from 'zod';
import { defineRoutes, route, uuid } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { pageLimit, pageOffset } from '../../http/schema-helpers';
import { requireVerifiedEmail } from '../../http/verified-email';
import { plainText } from '../../infra/plain-text';
import * as repo from './reports.repo';

const targetType = z.enum(['fundraiser', 'comment', 'update', 'user']);
const reportBody = z.object({
  target_type: targetType,
  target_id: uuid,
  reason: z.string().trim().min(1).max(200),
  details: z.string().max(5000).nullable().optional(),
});
const reportRead = z.object({
  id: z.string(),
  reporter_user_id: z.string().nullable(),
  target_type: targetType,
  target_id: z.string(),
  reason: z.string(),
  details: z.string().nullable(),
  status: z.string(),
  created_at: z.string(),
}).meta({ id: 'Report' });

/** Plain text only; markup is dropped, and text that cannot be decoded is refused. */
function clean(field: string, v: string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const t = plainText(v);
  if (t === null) throw new ApiError(400, 'Validation failed', `body.${field}: too many levels of HTML entity encoding`, { details: [{ path: `body.${field}`, message: 'too many levels of HTML entity encoding' }] });
  return t || null;
}

export default defineRoutes(
  '',
  [
    route({
      method: 'post',
      path: '/reports',
      summary: 'Report a campaign, comment, update or user',
      description: 'Needs a verified email (403 EMAIL_NOT_VERIFIED). `reason` 1 to 200 characters, `details` up to 5,000, both plain text. 404 when the reported thing does not exist.',
      auth: 'required',
      body: reportBody,
      status: 201,
      response: z.object({ data: z.object({ id: z.string(), status: z.literal('received') }) }),
      errors: [404],
      handler: async ({ ctx, actor, body }) => {
        requireVerifiedEmail(actor);
        const reason = clean('reason', body.reason);
        if (!reason) {
          throw new ApiError(400, 'Validation failed', 'body.reason: must not be empty', { details: [{ path: 'body.reason', message: 'must not be empty' }] });
        }
        if (!(await repo.targetExists(ctx.db, body.target_type, body.target_id))) throw new ApiError(404, 'Not found', 'The reported item was not found');
        const r = await repo.insert(ctx.db, {
          reporter_user_id: actor.userId,
          target_type: body.target_type,
          target_id: body.target_id,
          reason,
          details: clean('details', body.details),
        });
        return { data: { id: r.id, status: 'received' as const } };
      },
    }),
    route({
      method: 'get',
      path: '/admin/reports',
      summary: 'Reports received (staff)',
      description: 'Newest first, paged by offset.',
      auth: { role: 'staff' },
      query: z.object({ limit: pageLimit(), offset: pageOffset() }),
      response: z.object({ data: z.array(reportRead), pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }) }),
      handler: async ({ ctx, query }) => {
        const { rows, total } = await repo.list(ctx.db, query.limit, query.offset);
        return {
          data: rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() })),
          pagination: { limit: query.limit, offset: query.offset, total },
        };
      },
    }),
  ],
  { tag: 'reports' },
);
