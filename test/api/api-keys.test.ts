import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, impersonationCookies, sessionCookies, type TestUser } from '../helpers/auth';
import { oneYearAfter } from '../../src/modules/api-keys/api-keys.service';
import { revokeAllForUser } from '../../src/modules/api-keys/api-keys.repo';
import { resolveApiKey } from '../../src/modules/api-keys/api-keys.service';

afterAll(closeDb);

const t = createTestApp();
const DAY = 86_400_000;

// Signing in hashes a password (argon2): one session per user is enough.
const sessions = new Map<string, Promise<Record<string, string>>>();
function session(user: TestUser) {
  if (!sessions.has(user.id)) sessions.set(user.id, sessionCookies(t, user));
  return sessions.get(user.id)!;
}

async function createKey(user: TestUser, body: Record<string, unknown> = { name: 'ci' }) {
  return request(t.app).post('/api/v1/api-keys').set(await session(user)).send(body);
}
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const capabilitiesWith = (key: string) => request(t.app).get('/api/v1/me/capabilities').set(bearer(key));

describe('POST /api-keys', () => {
  test('when a signed-in session creates a key then 201 with the secret once and the key fields', async () => {
    const u = await createUser(testDb());
    const before = Date.now();
    const res = await createKey(u, { name: 'deploy bot' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: expect.any(String),
      api_key: expect.stringMatching(/^ak_live_[0-9a-f]{64}$/),
      key: {
        id: expect.any(String),
        name: 'deploy bot',
        prefix: res.body.api_key.slice(0, 12),
        scopes: ['*'],
        expires_at: expect.any(String),
        created_at: expect.any(String),
      },
    });
    // default lifetime: one year
    const life = new Date(res.body.key.expires_at).getTime() - before;
    expect(life).toBeGreaterThan(364 * DAY);
    expect(life).toBeLessThanOrEqual(366 * DAY);
    // only the SHA-256 is stored
    const row = await testDb()('api_keys').where({ id: res.body.key.id }).first();
    expect(JSON.stringify(row)).not.toContain(res.body.api_key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('when expires_at is sooner than a year then it is kept; null means the default year', async () => {
    const u = await createUser(testDb());
    const soon = new Date(Date.now() + 7 * DAY).toISOString();
    const a = await createKey(u, { name: 'week', expires_at: soon });
    expect(a.status).toBe(201);
    expect(a.body.key.expires_at).toBe(soon);
    const b = await createKey(u, { name: 'null', expires_at: null });
    expect(b.status).toBe(201);
    expect(new Date(b.body.key.expires_at).getTime() - Date.now()).toBeGreaterThan(364 * DAY);
  });

  test('when expires_at is omitted then it is exactly one year after created_at', async () => {
    const u = await createUser(testDb());
    const res = await createKey(u, { name: 'default' });
    expect(res.status).toBe(201);
    expect(res.body.key.expires_at).toBe(oneYearAfter(new Date(res.body.key.created_at)).toISOString());
  });

  test('when expires_at is a bare date or has no UTC offset then it is read as UTC', async () => {
    const u = await createUser(testDb());
    const day = new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10);
    const bare = await createKey(u, { name: 'date', expires_at: day });
    expect(bare.status).toBe(201);
    expect(bare.body.key.expires_at).toBe(`${day}T00:00:00.000Z`);
    const local = await createKey(u, { name: 'local', expires_at: `${day}T12:30:00` });
    expect(local.status).toBe(201);
    expect(local.body.key.expires_at).toBe(`${day}T12:30:00.000Z`);
  });

  test.each([
    ['a past date', () => '2020-01-01'],
    ['a date more than a year away', () => new Date(Date.now() + 400 * DAY).toISOString().slice(0, 10)],
    ['in the past', () => new Date(Date.now() - 1000).toISOString()],
    ['more than a year away', () => new Date(Date.now() + 367 * DAY).toISOString()],
    ['not a timestamp', () => 'tomorrow'],
  ])('when expires_at is %s then 400 on expires_at', async (_label, value) => {
    const u = await createUser(testDb());
    const res = await createKey(u, { name: 'x', expires_at: value() });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.expires_at');
  });

  test.each([
    ['empty', ''],
    ['blank', '   '],
    ['101 characters', 'n'.repeat(101)],
    ['missing', undefined],
  ])('when the name is %s then 400', async (_label, name) => {
    const u = await createUser(testDb());
    const res = await createKey(u, name === undefined ? {} : { name });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.name');
  });

  test('when the name is exactly 100 characters then 201', async () => {
    const u = await createUser(testDb());
    expect((await createKey(u, { name: 'n'.repeat(100) })).status).toBe(201);
  });

  test('when an API key tries to create a key then 403 with required_permission', async () => {
    const u = await createUser(testDb());
    const { body } = await createKey(u);
    const res = await request(t.app).post('/api/v1/api-keys').set(bearer(body.api_key)).send({ name: 'child' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'Forbidden', required_permission: 'api_keys.manage' });
    expect(await testDb()('api_keys').where({ user_id: u.id })).toHaveLength(1);
  });

  test('when a native app signed in with an ID token creates and revokes a key then it may (it is not an API key)', async () => {
    const u = await createUser(testDb());
    const headers = await authHeaders(t, u);
    const created = await request(t.app).post('/api/v1/api-keys').set(headers).send({ name: 'from the app' });
    expect(created.status).toBe(201);
    expect(created.body.api_key).toMatch(/^ak_live_[0-9a-f]{64}$/);
    const revoked = await request(t.app).delete(`/api/v1/api-keys/${created.body.key.id}`).set(headers);
    expect(revoked.status).toBe(200);
    const caps = await request(t.app).get('/api/v1/me/capabilities').set(headers);
    expect(caps.body.data.permissions).toContain('api_keys.manage');
  });

  test('when staff impersonating the owner try to create a key then 403', async () => {
    const staff = await createUser(testDb(), { roles: ['user', 'staff'] });
    const u = await createUser(testDb());
    const res = await request(t.app).post('/api/v1/api-keys').set(await impersonationCookies(t, staff, u)).send({ name: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.required_permission).toBe('api_keys.manage');
    expect(await testDb()('api_keys').where({ user_id: u.id })).toHaveLength(0);
  });

  test('when there is no credential then 401', async () => {
    expect((await request(t.app).post('/api/v1/api-keys').send({ name: 'x' })).status).toBe(401);
  });
});

describe('GET /api-keys', () => {
  test('when listed then newest first, without secrets, and revoked keys only on request', async () => {
    const u = await createUser(testDb());
    const first = (await createKey(u, { name: 'first' })).body;
    const second = (await createKey(u, { name: 'second' })).body;
    const third = (await createKey(u, { name: 'third' })).body;
    await request(t.app).delete(`/api/v1/api-keys/${second.key.id}`).set(await session(u));

    const res = await request(t.app).get('/api/v1/api-keys').set(await authHeaders(t, u));
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.data.map((k: { name: string }) => k.name)).toEqual(['third', 'first']);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes'],
    );
    expect(JSON.stringify(res.body)).not.toContain(first.api_key);
    expect(JSON.stringify(res.body)).not.toContain(third.api_key);

    const all = await request(t.app).get('/api/v1/api-keys?include_revoked=true').set(await authHeaders(t, u));
    expect(all.body.total).toBe(3);
    expect(all.body.data.map((k: { name: string }) => k.name)).toEqual(['third', 'second', 'first']);
    expect(all.body.data[1].revoked_at).toEqual(expect.any(String));
  });

  test('when another user lists then they do not see these keys', async () => {
    const a = await createUser(testDb());
    const b = await createUser(testDb());
    await createKey(a);
    const res = await request(t.app).get('/api/v1/api-keys').set(await authHeaders(t, b));
    expect(res.body).toEqual({ data: [], total: 0 });
  });

  test('when an API key lists keys then it is allowed (required auth)', async () => {
    const u = await createUser(testDb());
    const { body } = await createKey(u);
    const res = await request(t.app).get('/api/v1/api-keys').set(bearer(body.api_key));
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.data[0].last_used_at).toEqual(expect.any(String));
  });

  test('when include_revoked is not true or false then 400; without credential 401', async () => {
    const u = await createUser(testDb());
    expect((await request(t.app).get('/api/v1/api-keys?include_revoked=yes').set(await authHeaders(t, u))).status).toBe(400);
    expect((await request(t.app).get('/api/v1/api-keys')).status).toBe(401);
  });
});

describe('DELETE /api-keys/:id', () => {
  test('when the owner revokes a key then { message, id } and the key stops working at once', async () => {
    const u = await createUser(testDb());
    const { body } = await createKey(u);
    expect((await capabilitiesWith(body.api_key)).status).toBe(200);
    const res = await request(t.app).delete(`/api/v1/api-keys/${body.key.id}`).set(await session(u));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), id: body.key.id });
    const after = await capabilitiesWith(body.api_key);
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('Invalid API key');
  });

  test("when the key is someone else's, unknown or already revoked then 404", async () => {
    const a = await createUser(testDb());
    const b = await createUser(testDb());
    const { body } = await createKey(a);
    const asB = await session(b);
    expect((await request(t.app).delete(`/api/v1/api-keys/${body.key.id}`).set(asB)).status).toBe(404);
    expect((await request(t.app).delete('/api/v1/api-keys/00000000-0000-4000-8000-000000000000').set(asB)).status).toBe(404);
    const asA = await session(a);
    expect((await request(t.app).delete(`/api/v1/api-keys/${body.key.id}`).set(asA)).status).toBe(200);
    const again = await request(t.app).delete(`/api/v1/api-keys/${body.key.id}`).set(asA);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('Not found');
  });

  test('when the id is not a uuid then 400', async () => {
    const u = await createUser(testDb());
    const res = await request(t.app).delete('/api/v1/api-keys/not-a-uuid').set(await session(u));
    expect(res.status).toBe(400);
  });

  test('when an API key or an impersonated session revokes then 403 and the key survives', async () => {
    const staff = await createUser(testDb(), { roles: ['user', 'staff'] });
    const u = await createUser(testDb());
    const { body } = await createKey(u);
    const viaKey = await request(t.app).delete(`/api/v1/api-keys/${body.key.id}`).set(bearer(body.api_key));
    expect(viaKey.status).toBe(403);
    const viaStaff = await request(t.app).delete(`/api/v1/api-keys/${body.key.id}`).set(await impersonationCookies(t, staff, u));
    expect(viaStaff.status).toBe(403);
    expect((await testDb()('api_keys').where({ id: body.key.id }).first()).revoked_at).toBeNull();
  });
});

describe('authenticating with an API key', () => {
  test('when a key is used then it acts as its owner and last_used_at is stamped each time', async () => {
    const u = await createUser(testDb(), { roles: ['user', 'ambassador'] });
    const { body } = await createKey(u);
    const res = await capabilitiesWith(body.api_key);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ user_id: u.id, credential: 'api_key', roles: ['user', 'ambassador'] });
    const firstUse = (await testDb()('api_keys').where({ id: body.key.id }).first()).last_used_at as Date;
    expect(firstUse).toBeInstanceOf(Date);
    await new Promise((r) => setTimeout(r, 20));
    await capabilitiesWith(body.api_key);
    const secondUse = (await testDb()('api_keys').where({ id: body.key.id }).first()).last_used_at as Date;
    expect(secondUse.getTime()).toBeGreaterThan(firstUse.getTime());
  });

  test('when the key is unknown or malformed then 401 Invalid API key', async () => {
    const unknown = await capabilitiesWith(`ak_live_${'0'.repeat(64)}`);
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('Invalid API key');
    expect((await capabilitiesWith('ak_live_short')).body.error).toBe('Invalid API key');
  });

  test('when the key has expired then 401 Invalid API key', async () => {
    const u = await createUser(testDb());
    const { body } = await createKey(u);
    await testDb()('api_keys').where({ id: body.key.id }).update({ expires_at: testDb().raw(`now() - interval '1 second'`) });
    const res = await capabilitiesWith(body.api_key);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Invalid API key');
  });

  test('when the owner is suspended then keys are refused, and they work again after reactivation', async () => {
    const u = await createUser(testDb());
    const { body } = await createKey(u);
    await testDb()('users').where({ id: u.id }).update({ status: 'suspended' });
    const refused = await capabilitiesWith(body.api_key);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('Invalid API key');
    await testDb()('users').where({ id: u.id }).update({ status: 'active' });
    expect((await capabilitiesWith(body.api_key)).status).toBe(200);
  });

  test.each(['banned', 'deactivated'])('when the owner is %s then keys are refused', async (status) => {
    const u = await createUser(testDb());
    const { body } = await createKey(u);
    await testDb()('users').where({ id: u.id }).update({ status });
    expect((await capabilitiesWith(body.api_key)).body.error).toBe('Invalid API key');
  });

  test('when every key of a user is revoked (sign-out everywhere) then none works, other users keep theirs', async () => {
    const u = await createUser(testDb());
    const other = await createUser(testDb());
    const k1 = (await createKey(u, { name: 'a' })).body.api_key;
    const k2 = (await createKey(u, { name: 'b' })).body.api_key;
    const k3 = (await createKey(other, { name: 'c' })).body.api_key;
    expect(await revokeAllForUser(testDb(), u.id)).toBe(2);
    await expect(resolveApiKey(t.ctx, k1)).rejects.toMatchObject({ status: 401, error: 'Invalid API key' });
    await expect(resolveApiKey(t.ctx, k2)).rejects.toMatchObject({ status: 401 });
    await expect(resolveApiKey(t.ctx, k3)).resolves.toMatchObject({ userId: other.id, credential: 'api_key' });
  });
});
