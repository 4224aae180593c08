import { z } from 'zod';
import { defineRoutes, idParams, route } from '../../http/define-routes';
import { notFound } from '../../http/errors';
import * as repo from './api-keys.repo';
import { createKey } from './api-keys.service';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const keyRead = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  last_used_at: z.string().nullable(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
  created_at: z.string(),
}).meta({ id: 'ApiKey' });

export default defineRoutes(
  '/api-keys',
  [
    route({
      method: 'get',
      path: '/',
      summary: 'List your API keys, newest first (never the secret)',
      auth: 'required',
      query: z.object({ include_revoked: z.enum(['true', 'false']).default('false') }),
      response: z.object({ data: z.array(keyRead), total: z.number().int() }),
      handler: async ({ db, actor, query }) => {
        const keys = await repo.listForUser(db, actor.userId, query.include_revoked === 'true');
        const data = keys.map((k) => ({
          id: k.id,
          name: k.name,
          prefix: k.prefix,
          scopes: k.scopes,
          last_used_at: iso(k.last_used_at),
          expires_at: iso(k.expires_at)!,
          revoked_at: iso(k.revoked_at),
          created_at: iso(k.created_at)!,
        }));
        return { data, total: data.length };
      },
    }),
    route({
      method: 'post',
      path: '/',
      status: 201,
      summary: 'Create an API key (the full key is returned once, in api_key)',
      description:
        'Signed-in session only (session cookies, or a native app\'s ID token): an API key or an impersonated session answers 403 with `required_permission: api_keys.manage`. Every key expires: one year after creation unless `expires_at` asks for sooner; `expires_at` must be in the future and at most one year away (400 otherwise); null means the default. `expires_at` is an ISO 8601 timestamp; without a UTC offset it is read as UTC, and a bare date means midnight UTC of that day.',
      auth: 'session-only',
      body: z.object({
        name: z.string().trim().min(1, { message: 'must not be empty' }).max(100, { message: 'must be at most 100 characters' }),
        expires_at: z
          .union([z.iso.datetime({ offset: true, local: true }), z.iso.date()], { message: 'must be an ISO 8601 timestamp' })
          .nullable()
          .optional(),
      }),
      response: z.object({
        message: z.string(),
        api_key: z.string(),
        key: z.object({
          id: z.string(),
          name: z.string(),
          prefix: z.string(),
          scopes: z.array(z.string()),
          expires_at: z.string(),
          created_at: z.string(),
        }),
      }),
      // The full key is a credential: a replay shows `key` (id, prefix) so a client can revoke it.
      secretFields: ['api_key'],
      handler: ({ ctx, actor, body }) => createKey(ctx, actor.userId, body),
    }),
    route({
      method: 'delete',
      path: '/:id',
      summary: 'Revoke an API key (immediate)',
      description: "Signed-in session only (session cookies or an ID token; an API key or an impersonated session answers 403). 404 when the key is someone else's, unknown or already revoked.",
      auth: 'session-only',
      params: idParams,
      errors: [404],
      response: z.object({ message: z.string(), id: z.string() }),
      handler: async ({ db, actor, params }) => {
        if (!(await repo.revokeForUser(db, actor.userId, params.id))) throw notFound('API key');
        return { message: 'API key revoked', id: params.id };
      },
    }),
  ],
  { tag: 'api-keys' },
);
