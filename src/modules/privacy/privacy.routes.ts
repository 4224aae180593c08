import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { defineRoutes, idParams, route, type RouteModule } from '../../http/define-routes';
import { defineLimiter, fixed, MINUTE } from '../../http/rate-limits';
import { requestLocale } from '../../integrations/mail';
import type { PersonalDataPart } from '../define-module';
import { cancelErasure, erasureStatus, requestErasure } from './privacy.erasure';
import { exportStatus, openExport, requestExport } from './privacy.exports';
import { confirmRequest, createRequest } from './privacy.guests';

type Parts = ReadonlyArray<{ module: string; part: PersonalDataPart }>;

/** Guests' requests mail an address: few per address-guessing client. */
export const privacyRequestLimiter = defineLimiter('privacyRequests', { windowMs: 15 * MINUTE, limit: fixed(5), key: 'ip', message: 'Too many privacy requests. Please try again later.' });

const exportStatusBody = z.object({
  data: z.object({
    id: z.string().uuid(),
    status: z.enum(['pending', 'ready', 'failed', 'expired']),
    download_url: z.string().nullable().describe('Signed link valid 7 days (Content-Disposition: attachment); null until ready'),
    expires_at: z.string().nullable(),
  }),
});

export function meRoutes(parts: Parts): RouteModule {
  return defineRoutes(
    '/me',
    [
      route({
        method: 'post',
        path: '/data-export',
        status: 202,
        summary: 'Ask for a copy of everything held about the account (one JSON document, mailed as a link)',
        description:
          'A job builds the document; `GET /me/data-exports/{id}` and a mail give the download link (valid 7 days). One running and 3 a day per account, 429 beyond. Not with an API key (403).',
        auth: 'session-only',
        response: z.object({ data: z.object({ id: z.string().uuid(), status: z.literal('pending'), created_at: z.string() }) }),
        errors: [429],
        handler: ({ ctx, actor }) => requestExport(ctx, actor.userId),
      }),
      route({
        method: 'get',
        path: '/data-exports/:id',
        summary: "An export's status and download link",
        description: "Another account's export answers 404.",
        auth: 'session-only',
        params: idParams,
        response: exportStatusBody,
        handler: ({ ctx, actor, params }) => exportStatus(ctx, actor.userId, params.id),
      }),
      route({
        method: 'post',
        path: '/erasure',
        status: 202,
        summary: 'Ask for the account to be erased (after 14 days of grace)',
        description:
          'Needs a cookie session signed in within 15 minutes, or `{ password }` (403 `REAUTHENTICATION_REQUIRED` otherwise). At once: sessions end, API keys are revoked, webhook endpoints disabled, the profile answers 404 to others. `DELETE /me/erasure` within the 14 days cancels. 409 `ERASURE_BLOCKED` with `reasons` (each says what to do) while money is not paid out, the account is an organization\'s only owner, or leads a community with members.',
        auth: 'session-only',
        body: z.object({ password: z.string().min(1).max(256).optional() }).optional(),
        response: z.object({ data: z.object({ scheduled_for: z.string() }) }),
        errors: [409, 503],
        handler: ({ ctx, req, actor, body }) => requestErasure(ctx, parts, req, actor, body?.password),
      }),
      route({
        method: 'get',
        path: '/erasure',
        summary: 'The scheduled erasure of the account (404 when none)',
        auth: 'session-only',
        response: z.object({ data: z.object({ scheduled_for: z.string() }) }),
        handler: ({ ctx, actor }) => erasureStatus(ctx, actor.userId),
      }),
      route({
        method: 'delete',
        path: '/erasure',
        summary: 'Cancel the scheduled erasure (404 when none)',
        auth: 'session-only',
        response: z.object({ data: z.object({ status: z.literal('cancelled') }) }),
        handler: ({ ctx, actor }) => cancelErasure(ctx, actor.userId),
      }),
    ],
    { tag: 'privacy' },
  );
}

export function guestRoutes(parts: Parts): RouteModule {
  return defineRoutes(
    '/privacy',
    [
      route({
        method: 'post',
        path: '/requests',
        summary: "A guest donor's export or erasure request (a one-use confirmation link is mailed)",
        description: 'Always 200 with the same message, whether or not the address gave. The link (24 hours) leads to `{SITE_URL}/privacy/confirm?token=...`.',
        auth: 'none',
        limiters: ['strict', privacyRequestLimiter],
        body: z.object({ email: z.string().trim().max(254).pipe(z.email({ message: 'must be a valid email address' })), kind: z.enum(['export', 'erasure']) }),
        response: z.object({ message: z.string() }),
        handler: ({ ctx, req, body }) => createRequest(ctx, body.email, body.kind, requestLocale(req) ?? 'en'),
      }),
      route({
        method: 'post',
        path: '/requests/confirm',
        summary: "Confirms a guest's request: an export is mailed as a link; an erasure anonymises every guest gift of the address at once",
        description: '400 `PRIVACY_TOKEN_INVALID` for an unknown, used or expired token.',
        auth: 'none',
        limiters: ['strict'],
        body: z.object({ token: z.string().min(1).max(200) }),
        response: z.object({ data: z.object({ kind: z.enum(['export', 'erasure']), status: z.string() }) }),
        handler: ({ ctx, body }) => confirmRequest(ctx, parts, body.token),
      }),
      route({
        method: 'get',
        path: '/exports/:id/download',
        summary: 'Downloads an export through its signed link',
        description: 'The link in the mail and in `GET /me/data-exports/{id}`; valid 7 days. Bad or expired link 404.',
        auth: 'none',
        params: idParams,
        query: z.object({ token: z.string().min(1).max(1024) }),
        produces: 'application/json',
        handler: async ({ ctx, res, params, query }) => {
          const obj = await openExport(ctx, params.id, query.token);
          res.setHeader('Content-Type', 'application/json');
          res.setHeader('Content-Length', obj.size);
          res.setHeader('Content-Disposition', `attachment; filename="personal-data-${params.id}.json"`);
          res.setHeader('Cache-Control', 'private, no-store');
          await pipeline(obj.body, res);
        },
      }),
    ],
    { tag: 'privacy' },
  );
}
