import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { defineRoutes, route } from '../../src/http/define-routes';
import { FlagService, KNOWN_FLAGS } from '../../src/http/flags';
import { modules } from '../../src/modules';
import { authHeaders, createUser } from '../helpers/auth';
import { buildContractApp, closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';

// A flag key of this file only: the flag table is shared with test files running in parallel.
const FLAG = `features.probe_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

const probe = defineRoutes(
  '/flag-probe',
  [route({ method: 'get', path: '/', summary: 'flagged probe', auth: 'none', flag: FLAG, handler: () => ({ ok: true }) })],
  { tag: 'test' },
);

function appWith(): TestApp {
  const base = createTestApp();
  return { ...base, app: buildContractApp(base.ctx, [...modules, probe]) };
}

afterEach(() => jest.restoreAllMocks());
afterAll(async () => {
  await testDb()('feature_flags').where({ key: FLAG }).del();
  await closeDb();
});

describe('feature flags', () => {
  test('when a flag has no stored setting then the flagged route answers', async () => {
    const t = appWith();
    expect(await testDb()('feature_flags').where({ key: FLAG }).first()).toBeUndefined();
    const res = await request(t.app).get('/api/v1/flag-probe');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  test('when a flag is turned off in the database then the route answers 403 with feature_key within the cache TTL, without restart', async () => {
    const t = appWith();
    expect((await request(t.app).get('/api/v1/flag-probe')).status).toBe(200);
    await testDb()('feature_flags').insert({ key: FLAG, enabled: false, updated_at: new Date() }).onConflict('key').merge();
    // Still served from the few-second cache right after the change ...
    expect((await request(t.app).get('/api/v1/flag-probe')).status).toBe(200);
    // ... and off once the 3 s cache has expired (clock moved instead of waiting).
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 3_100);
    const res = await request(t.app).get('/api/v1/flag-probe');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'Feature disabled', message: expect.any(String), feature_key: FLAG });
    jest.restoreAllMocks();

    // Back on, same instance.
    await testDb()('feature_flags').where({ key: FLAG }).update({ enabled: true, updated_at: new Date() });
    jest.spyOn(Date, 'now').mockReturnValue(now + 6_300);
    expect((await request(t.app).get('/api/v1/flag-probe')).status).toBe(200);
  });

  test('when the flag service is built with a short TTL then a change shows after that TTL', async () => {
    const t = appWith();
    t.ctx.flags = new FlagService(testDb(), 50);
    await testDb()('feature_flags').insert({ key: FLAG, enabled: true, updated_at: new Date() }).onConflict('key').merge();
    expect((await request(t.app).get('/api/v1/flag-probe')).status).toBe(200);
    await testDb()('feature_flags').where({ key: FLAG }).update({ enabled: false });
    await new Promise((r) => setTimeout(r, 80));
    expect((await request(t.app).get('/api/v1/flag-probe')).status).toBe(403);
    await testDb()('feature_flags').where({ key: FLAG }).update({ enabled: true });
  });

  test('when a signed-in user reads GET /features then every features.* flag is listed as key, enabled, updated_at', async () => {
    const t = appWith();
    await testDb()('feature_flags').insert({ key: FLAG, enabled: false, updated_at: new Date() }).onConflict('key').merge();
    await testDb()('feature_flags').insert({ key: 'ops.not_a_feature', enabled: false }).onConflict('key').ignore();
    const user = await createUser(testDb());
    const res = await request(t.app).get('/api/v1/features').set(await authHeaders(t, user));
    expect(res.status).toBe(200);
    const data = res.body.data as Array<Record<string, unknown>>;
    for (const f of data) {
      expect(Object.keys(f).sort()).toEqual(['enabled', 'key', 'updated_at']);
      expect(String(f.key)).toMatch(/^features\./);
    }
    const keys = data.map((f) => f.key);
    for (const k of KNOWN_FLAGS) expect(keys).toContain(k);
    expect(keys).not.toContain('ops.not_a_feature');
    const mine = data.find((f) => f.key === FLAG)!;
    expect(mine.enabled).toBe(false);
    expect(new Date(String(mine.updated_at)).toISOString()).toBe(mine.updated_at);
    await testDb()('feature_flags').where({ key: 'ops.not_a_feature' }).del();
  });

  test('when GET /features is called signed out then 401', async () => {
    const t = appWith();
    const res = await request(t.app).get('/api/v1/features');
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual(expect.any(String));
    expect(res.body.message).toEqual(expect.any(String));
  });
});
