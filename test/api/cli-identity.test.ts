import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { z } from 'zod';
import { commands } from '../../src/cli/commands';
import { defineRoutes, route } from '../../src/http/define-routes';
import { createKey } from '../../src/modules/api-keys/api-keys.service';
import { buildContractApp, closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, sessionCookies, TEST_PASSWORD } from '../helpers/auth';

afterAll(closeDb);

const t = createTestApp();
const probe = defineRoutes('/probe', [
  route({ method: 'get', path: '/', summary: 'probe', auth: 'required', response: z.object({ userId: z.string(), roles: z.array(z.string()) }), handler: ({ actor }) => ({ userId: actor!.userId, roles: actor!.roles }) }),
]);
const probeApp = buildContractApp(t.ctx, [probe]);
const run = (name: string, ...args: string[]) => commands[name]!.run(t.ctx.db, args, t.ctx.config);
const get = (h: Record<string, string>) => request(probeApp).get('/api/v1/probe').set(h);

describe('operator CLI: identity commands', () => {
  test('when grant-role then revoke-role then the role appears and disappears on the next request', async () => {
    const u = await createUser(t.ctx.db);
    const h = await authHeaders(t, u);
    expect(await run('grant-role', u.email.toUpperCase(), 'staff')).toMatch(/now has role staff/);
    expect((await get(h)).body.roles).toEqual(['user', 'staff']);
    expect(await run('revoke-role', u.email, 'staff')).toMatch(/no longer has role staff/);
    expect((await get(h)).body.roles).toEqual(['user']);
  });

  test('when grant-role gets an unknown role or address then it fails with a message', async () => {
    const u = await createUser(t.ctx.db);
    await expect(run('grant-role', u.email, 'emperor')).rejects.toThrow(/role must be one of/);
    await expect(run('grant-role', 'nobody@example.test', 'staff')).rejects.toThrow(/no account/);
  });

  test('when user-status suspends an owner then cookie, bearer and API key stop; reactivation restores them', async () => {
    const u = await createUser(t.ctx.db);
    const cookies = await sessionCookies(t, u);
    const bearer = await authHeaders(t, u);
    const { api_key } = await createKey(t.ctx, u.id, { name: 'script' });
    const key = { Authorization: `Bearer ${api_key}` };
    expect((await get(key)).status).toBe(200);
    expect(await run('user-status', u.email, 'suspended')).toMatch(/is now suspended/);
    for (const h of [cookies, bearer, key]) expect((await get(h)).status).toBe(401);
    await run('user-status', u.email, 'active');
    for (const h of [cookies, bearer, key]) expect((await get(h)).status).toBe(200);
    await expect(run('user-status', u.email, 'frozen')).rejects.toThrow(/status must be one of/);
  });

  test('when sign-out-everywhere then sessions, ID tokens and every API key stop for good', async () => {
    const u = await createUser(t.ctx.db);
    const cookies = await sessionCookies(t, u);
    const bearer = await authHeaders(t, u);
    const { api_key } = await createKey(t.ctx, u.id, { name: 'script' });
    const key = { Authorization: `Bearer ${api_key}` };
    expect(await run('sign-out-everywhere', u.email)).toMatch(/signed out everywhere; 1 API key/);
    for (const h of [cookies, bearer, key]) expect((await get(h)).status).toBe(401);
    expect((await request(t.app).post('/api/v1/idp/refresh').set(cookies)).status).toBe(401);
    // A fresh sign-in works again; the key stays revoked.
    expect((await get(await authHeaders(t, u))).status).toBe(200);
    expect((await get(key)).status).toBe(401);
  });

  test('when the user logs out then API keys keep working', async () => {
    const u = await createUser(t.ctx.db);
    const cookies = await sessionCookies(t, u);
    const { api_key } = await createKey(t.ctx, u.id, { name: 'script' });
    expect((await request(t.app).post('/api/v1/idp/logout').set(cookies)).status).toBe(200);
    expect((await get({ Authorization: `Bearer ${api_key}` })).status).toBe(200);
  });

  test('when force-password-reset then the next sign-in answers NEW_PASSWORD_REQUIRED', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    expect(await run('force-password-reset', u.email)).toMatch(/new password/);
    const res = await request(t.app).post('/api/v1/idp/signin').send({ email: u.email, password: TEST_PASSWORD });
    expect(res.body.challengeName).toBe('NEW_PASSWORD_REQUIRED');
  });

  test('when create-ambassador-invite then the printed token grants the ambassador role at sign-up', async () => {
    const email = `amb-${Date.now()}@example.test`;
    const line = await run('create-ambassador-invite', email);
    const token = line.split(': ')[1]!;
    const res = await request(t.app).post('/api/v1/idp/signup').send({ email, password: 'ambassador-1', ambassadorInviteToken: token });
    expect(res.status).toBe(201);
    expect(res.body.user.role).toBe('ambassador');
  });

  test('when run as a process then one line and exit 0 on success, a message and non-zero on failure', async () => {
    const u = await createUser(t.ctx.db);
    const exec = promisify(execFile);
    const cwd = path.resolve(__dirname, '../..');
    const env = { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_DIRECT_URL: process.env.TEST_DIRECT_DATABASE_URL, LOG_LEVEL: 'silent' };
    const tsx = path.join(cwd, 'node_modules/.bin/tsx');
    const ok = await exec(tsx, ['src/cli/admin.ts', 'user-status', u.email, 'banned'], { cwd, env });
    expect(ok.stdout.trim()).toBe(`${u.email} is now banned`);
    const fail = await exec(tsx, ['src/cli/admin.ts', 'user-status', 'nobody@example.test', 'banned'], { cwd, env }).catch((e) => e);
    expect(fail.code).not.toBe(0);
    expect(fail.stderr).toMatch(/no account/);
  }, 240_000);
});
