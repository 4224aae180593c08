import request from 'supertest';
import type { TestApp } from './app';
import { authHeaders, createUser, type TestUser } from './auth';

export type Headers = Record<string, string>;

/** A signed-in person (a verified user and their bearer headers) on `t`. */
export async function person(t: TestApp, opts: Partial<TestUser> = {}): Promise<{ u: TestUser; h: Headers }> {
  const u = await createUser(t.ctx.db, opts);
  return { u, h: await authHeaders(t, u) };
}

/** A paid community created by the caller of `h` (monthly, 15 USD unless `body` says otherwise). */
export async function community(t: TestApp, h: Headers, body: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const r = await request(t.app).post('/api/v1/communities').set(h).send({ name: 'Night Owls', price_cents: 1500, interval: 'month', ...body });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; slug: string };
}
