import request from 'supertest';
import type { IdentityProvider } from '../../src/integrations/idp/port';
import { LocalIdentityProvider } from '../../src/integrations/idp';
import { sha256Hex } from '../../src/infra/hash';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { createUser, type TestUser } from '../helpers/auth';

afterAll(closeDb);

/**
 * An external provider (as IDP=cognito is seen by the service) whose tokens come from the local
 * provider's signer, so they verify; it records the username each refresh is asked with.
 */
async function externalProvider(t: TestApp, user: TestUser) {
  const local = t.ctx.idp as LocalIdentityProvider;
  const usernames: Array<string | undefined> = [];
  const fake = Object.create(local) as IdentityProvider & { kind: string };
  Object.defineProperty(fake, 'kind', { value: 'cognito' });
  fake.initiateAuth = async () => ({ kind: 'tokens', tokens: await local.issueTokensForUser(user.id) });
  fake.refresh = async (refreshToken, username) => {
    usernames.push(username);
    return local.refresh(refreshToken);
  };
  await t.ctx.db('users').where({ id: user.id }).update({ idp_subject: user.id });
  t.ctx.idp = fake;
  return usernames;
}

function cookie(res: request.Response, name: string): string {
  const raw = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith(`${name}=`))!;
  return raw.split(';')[0]!.slice(name.length + 1);
}

describe('external identity provider sessions', () => {
  test('when only the refresh cookie is left (id_token lapsed) then refresh still names the account to the provider', async () => {
    const t = createTestApp();
    const u = await createUser(t.ctx.db);
    const usernames = await externalProvider(t, u);

    const signIn = await request(t.app).post('/api/v1/idp/signin').send({ email: u.email, password: 'any-pass-1' });
    expect(signIn.status).toBe(200);
    const refreshToken = cookie(signIn, 'refresh_token');
    const stored = await t.ctx.db('refresh_token_owners').where({ token_hash: sha256Hex(refreshToken) }).first();
    expect(stored).toEqual(expect.objectContaining({ user_id: u.id, subject: u.id }));
    expect(JSON.stringify(stored)).not.toContain(refreshToken);

    const res = await request(t.app).post('/api/v1/idp/refresh').set('Cookie', `refresh_token=${refreshToken}`);
    expect(res.status).toBe(200);
    expect(usernames).toEqual([u.id]);
  });

  test('when logout carries only the refresh cookie then the account is signed out everywhere and the owner rows are forgotten', async () => {
    const t = createTestApp();
    const u = await createUser(t.ctx.db);
    await externalProvider(t, u);
    const signIn = await request(t.app).post('/api/v1/idp/signin').send({ email: u.email, password: 'any-pass-1' });
    const refreshToken = cookie(signIn, 'refresh_token');
    const idToken = cookie(signIn, 'id_token');
    // Signed-in tokens carry whole-second iat; sign-out-everywhere must fall after it.
    await new Promise((r) => setTimeout(r, 1100));

    const out = await request(t.app).post('/api/v1/idp/logout').set('Cookie', `refresh_token=${refreshToken}`);
    expect(out.status).toBe(200);
    expect(await t.ctx.db('refresh_token_owners').where({ user_id: u.id })).toEqual([]);
    const after = await request(t.app).get('/api/v1/me/capabilities').set('Authorization', `Bearer ${idToken}`);
    expect(after.status).toBe(401);
  });
});
