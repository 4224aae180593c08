import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import type { AppContext } from '../../src/context';
import type { Actor } from '../../src/http/actor';
import { buildRouteHandlers, defineRoutes, idParams, route, type RouteDef } from '../../src/http/define-routes';
import { ApiError, errorHandler } from '../../src/http/errors';
import { buildOpenApi } from '../../src/http/openapi/openapi';
import { policyResult, type SignedInPolicy } from '../../src/http/policy-result';
import type { Limiters } from '../../src/http/rate-limits';
import { modules } from '../../src/modules';

const owner: Actor = {
  userId: '00000000-0000-4000-8000-000000000001',
  email: 'owner@example.test',
  roles: ['user'],
  credential: 'session',
  emailVerified: true,
  impersonatedBy: null,
  apiKeyId: null,
};
const thingId = '00000000-0000-4000-8000-0000000000aa';

// Records the pipeline's steps so each test can assert what ran, and in which order.
let steps: string[];
const loaded = policyResult<{ id: string; owner: string }>('ownsThing');

const ownsThing: SignedInPolicy<{ id: string }> = {
  describe: 'the caller owns the thing',
  check({ req, actor, params }) {
    steps.push(`policy:${params.id}:${actor.userId}`);
    if (params.id !== thingId) throw new ApiError(404, 'Not found', 'Thing not found');
    loaded.set(req, { id: params.id, owner: actor.userId });
  },
};

const patchThing = route({
  method: 'patch',
  path: '/things/:id',
  auth: 'required',
  policy: ownsThing,
  params: idParams,
  body: z.object({ name: z.string().min(1) }),
  handler: ({ req, body }) => {
    steps.push('handler');
    return { data: { ...loaded.get(req), name: body.name } };
  },
});

function appFor(def: RouteDef) {
  const ctx = {
    db: {},
    credentials: { resolve: async () => owner },
    flags: { isEnabled: async () => true },
    replicas: { enabled: false },  // no standbys: writes note no LSN
  } as unknown as AppContext;
  const app = express();
  app.use(express.json());
  app[def.method](def.path, ...buildRouteHandlers(def, ctx, {} as Limiters));
  app.use(errorHandler);
  return app;
}

beforeEach(() => {
  steps = [];
});

describe('route policy pipeline', () => {
  it('when the request is valid and the policy passes, then the policy runs before the handler and hands it what it loaded', async () => {
    const res = await request(appFor(patchThing)).patch(`/things/${thingId}`).set('Authorization', 'Bearer t').send({ name: 'n' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: thingId, owner: owner.userId, name: 'n' } });
    expect(steps).toEqual([`policy:${thingId}:${owner.userId}`, 'handler']);
  });

  it('when the policy throws, then the handler never runs and the answer is the policy\'s error', async () => {
    const other = '00000000-0000-4000-8000-0000000000bb';
    const res = await request(appFor(patchThing)).patch(`/things/${other}`).set('Authorization', 'Bearer t').send({ name: 'n' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'Not found', message: 'Thing not found' });
    expect(steps).toEqual([`policy:${other}:${owner.userId}`]);
  });

  it('when the body is invalid, then validation answers 400 before the policy runs', async () => {
    const res = await request(appFor(patchThing)).patch(`/things/${thingId}`).set('Authorization', 'Bearer t').send({ name: '' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Validation failed');
    expect(steps).toEqual([]);
  });

  it('when a path parameter is invalid, then the policy never sees it', async () => {
    const res = await request(appFor(patchThing)).patch('/things/not-a-uuid').set('Authorization', 'Bearer t').send({ name: 'n' });
    expect(res.status).toBe(400);
    expect(steps).toEqual([]);
  });

  it('when the caller is not signed in, then the auth rule answers 401 before the policy runs', async () => {
    const res = await request(appFor(patchThing)).patch(`/things/${thingId}`).send({ name: 'n' });
    expect(res.status).toBe(401);
    expect(steps).toEqual([]);
  });

  it('when a handler reads a policy result its route does not declare, then it fails loudly', async () => {
    const undeclared = route({ ...patchThing, policy: undefined });
    const res = await request(appFor(undeclared)).patch(`/things/${thingId}`).set('Authorization', 'Bearer t').send({ name: 'n' });
    expect(res.status).toBe(500);
  });
});

describe('declared policies in the OpenAPI description', () => {
  const description = (doc: Record<string, unknown>, path: string, method: string): string =>
    ((doc.paths as Record<string, Record<string, { description?: string }>>)[path][method].description ?? '');

  it('when a route declares a policy, then its description says so next to the auth rule', () => {
    const doc = buildOpenApi([defineRoutes('/probe', [patchThing])]);
    expect(description(doc, '/api/v1/probe/things/{id}', 'patch')).toContain('Auth: required. Policy: the caller owns the thing.');
  });

  it('when the service documents its owner-only routes, then each names its policy', () => {
    const doc = buildOpenApi(modules);
    for (const [path, method] of [
      ['/api/v1/fundraisers/{id}', 'patch'],
      ['/api/v1/fundraisers/{id}', 'delete'],
      ['/api/v1/comments/{id}', 'delete'],
      ['/api/v1/payouts/refresh', 'post'],
      ['/api/v1/processor/connect/status', 'get'],
      ['/api/v1/processor/connect/dashboard-link', 'post'],
      ['/api/v1/processor/connect/onboarding', 'post'],
    ]) {
      expect(description(doc, path, method)).toMatch(/Policy: .+\./);
    }
    expect(description(doc, '/api/v1/fundraisers/{id}', 'get')).not.toContain('Policy:');
  });
});
