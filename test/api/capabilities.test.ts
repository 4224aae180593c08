import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, sessionCookies } from '../helpers/auth';

afterAll(closeDb);

const t = createTestApp();

describe('GET /me/capabilities', () => {
  test('when a user calls with an ID token then { data: { user_id, credential, roles, permissions } }', async () => {
    const u = await createUser(testDb());
    const res = await request(t.app).get('/api/v1/me/capabilities').set(await authHeaders(t, u));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { user_id: u.id, credential: 'id_token', roles: ['user'], permissions: expect.any(Array) },
    });
    expect(res.body.data.permissions).toContain('platform.user');
    expect(res.body.data.permissions).not.toContain('platform.staff');
    // The holder signed in themself (native app): key management is theirs, as with cookies.
    expect(res.body.data.permissions).toContain('api_keys.manage');
  });

  test('when an API key calls then credential is api_key and key management is absent', async () => {
    const u = await createUser(testDb());
    const created = await request(t.app).post('/api/v1/api-keys').set(await authHeaders(t, u)).send({ name: 'caps' });
    expect(created.status).toBe(201);
    const res = await request(t.app).get('/api/v1/me/capabilities').set('Authorization', `Bearer ${created.body.api_key}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ user_id: u.id, credential: 'api_key', roles: ['user'] });
    expect(res.body.data.permissions).toContain('api_keys.read');
    expect(res.body.data.permissions).not.toContain('api_keys.manage');
  });

  test('when an admin calls then admin and staff permissions are listed', async () => {
    const u = await createUser(testDb(), { roles: ['user', 'admin'] });
    const res = await request(t.app).get('/api/v1/me/capabilities').set(await authHeaders(t, u));
    expect(res.body.data.roles).toEqual(['user', 'admin']);
    expect(res.body.data.permissions).toEqual(expect.arrayContaining(['platform.admin', 'platform.staff']));
  });

  test('when a browser session calls then credential is session and key management is allowed', async () => {
    const u = await createUser(testDb());
    const res = await request(t.app).get('/api/v1/me/capabilities').set(await sessionCookies(t, u));
    expect(res.status).toBe(200);
    expect(res.body.data.credential).toBe('session');
    expect(res.body.data.permissions).toContain('api_keys.manage');
  });

  test('when there is no credential then 401', async () => {
    const res = await request(t.app).get('/api/v1/me/capabilities');
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual(expect.any(String));
  });
});
