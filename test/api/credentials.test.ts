import jwt from 'jsonwebtoken';
import { generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import { defineRoutes, route } from '../../src/http/define-routes';
import { LocalIdentityProvider } from '../../src/integrations/idp';
import { globalSignOut } from '../../src/modules/idp/idp.service';
import { buildContractApp, closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, impersonationCookies, sessionCookies } from '../helpers/auth';

afterAll(closeDb);

// A probe route that echoes the resolved actor, so the resolver is tested on its own.
const probe = defineRoutes('/probe', [
  route({
    method: 'get',
    path: '/',
    summary: 'probe',
    auth: 'required',
    handler: ({ actor }) => ({ userId: actor!.userId, credential: actor!.credential, impersonatedBy: actor!.impersonatedBy }),
  }),
  route({ method: 'post', path: '/', summary: 'probe write', auth: 'optional', handler: ({ actor }) => ({ userId: actor?.userId ?? null }) }),
  route({ method: 'get', path: '/cookie', summary: 'cookie only', auth: 'cookie', handler: () => ({ ok: true }) }),
]);

const t = createTestApp();
const app = buildContractApp(t.ctx, [probe]);
const idp = t.ctx.idp as LocalIdentityProvider;

describe('credential resolver', () => {
  test('when no credential is sent then a required route answers 401 Not authenticated', async () => {
    const res = await request(app).get('/api/v1/probe');
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Not authenticated');
  });

  test('when a bearer ID token minted by the local IdP is sent then the user is resolved as id_token', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(app).get('/api/v1/probe').set(await authHeaders(t, u));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ userId: u.id, credential: 'id_token', impersonatedBy: null });
  });

  test('when session cookies are sent then the user is resolved as session', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(app).get('/api/v1/probe').set(await sessionCookies(t, u));
    expect(res.status).toBe(200);
    expect(res.body.credential).toBe('session');
  });

  test('when both cookies and a bearer of another user are sent then the cookies decide', async () => {
    const a = await createUser(t.ctx.db);
    const b = await createUser(t.ctx.db);
    const res = await request(app)
      .get('/api/v1/probe')
      .set(await sessionCookies(t, a))
      .set(await authHeaders(t, b));
    expect(res.body.userId).toBe(a.id);
    expect(res.body.credential).toBe('session');
  });

  test('when the access token is used as a bearer then 401 Invalid token with code TOKEN_INVALID', async () => {
    const u = await createUser(t.ctx.db);
    const tokens = await idp.issueTokensForUser(u.id);
    const res = await request(app).get('/api/v1/probe').set('Authorization', `Bearer ${tokens.accessToken}`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'Invalid token', code: 'TOKEN_INVALID' });
  });

  test('when the bearer is garbage then 401 code TOKEN_VERIFICATION_FAILED', async () => {
    const res = await request(app).get('/api/v1/probe').set('Authorization', 'Bearer not.a.jwt');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('TOKEN_VERIFICATION_FAILED');
  });

  test('when the ID token is signed by a foreign key with a known kid then 401 TOKEN_VERIFICATION_FAILED', async () => {
    const u = await createUser(t.ctx.db);
    const real = await idp.issueTokensForUser(u.id);
    const kid = (jwt.decode(real.idToken, { complete: true })!.header.kid)!;
    const claims = jwt.decode(real.idToken) as jwt.JwtPayload;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = jwt.sign(claims, privateKey, { algorithm: 'RS256', keyid: kid });
    const res = await request(app).get('/api/v1/probe').set('Authorization', `Bearer ${forged}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('TOKEN_VERIFICATION_FAILED');
  });

  test('when an HS256 token is sent then 401 TOKEN_VERIFICATION_FAILED (RS256 only)', async () => {
    const u = await createUser(t.ctx.db);
    const hs = jwt.sign({ sub: u.id, token_use: 'id' }, 'secret', { algorithm: 'HS256', keyid: 'x' });
    const res = await request(app).get('/api/v1/probe').set('Authorization', `Bearer ${hs}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('TOKEN_VERIFICATION_FAILED');
  });

  test('when the ID token has expired then 401 Invalid token TOKEN_INVALID', async () => {
    const u = await createUser(t.ctx.db);
    const real = await idp.issueTokensForUser(u.id);
    const key = await idp.keys.current();
    const claims = jwt.decode(real.idToken) as jwt.JwtPayload;
    const expired = jwt.sign({ ...claims, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }, key.privatePem, {
      algorithm: 'RS256',
      keyid: key.kid,
    });
    const res = await request(app).get('/api/v1/probe').set('Authorization', `Bearer ${expired}`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'Invalid token', code: 'TOKEN_INVALID' });
  });

  test('when an ID token signed with the real key has no exp then 401 Invalid token TOKEN_INVALID, as a bearer and as a cookie', async () => {
    const u = await createUser(t.ctx.db);
    const real = await idp.issueTokensForUser(u.id);
    const key = await idp.keys.current();
    const { exp: _exp, ...claims } = jwt.decode(real.idToken) as jwt.JwtPayload;
    const forever = jwt.sign(claims, key.privatePem, { algorithm: 'RS256', keyid: key.kid });
    expect((jwt.decode(forever) as jwt.JwtPayload).exp).toBeUndefined();
    const bearer = await request(app).get('/api/v1/probe').set('Authorization', `Bearer ${forever}`);
    expect(bearer.status).toBe(401);
    expect(bearer.body).toMatchObject({ error: 'Invalid token', message: expect.any(String), code: 'TOKEN_INVALID' });
    const cookie = await request(app).get('/api/v1/probe').set('Cookie', `id_token=${forever}`);
    expect(cookie.status).toBe(401);
    expect(cookie.body.code).toBe('TOKEN_INVALID');
    // The same claims with their exp back are accepted: only the missing expiry is refused.
    const ok = await request(app).get('/api/v1/probe').set('Authorization', `Bearer ${real.idToken}`);
    expect(ok.status).toBe(200);
  });

  test('when the owner is suspended then both the bearer and the cookie session stop at once, and work again on reactivation', async () => {
    const u = await createUser(t.ctx.db);
    const bearer = await authHeaders(t, u);
    const cookies = await sessionCookies(t, u);
    await t.ctx.db('users').where({ id: u.id }).update({ status: 'suspended' });
    for (const h of [bearer, cookies]) {
      const res = await request(app).get('/api/v1/probe').set(h);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('TOKEN_INVALID');
    }
    await t.ctx.db('users').where({ id: u.id }).update({ status: 'active' });
    expect((await request(app).get('/api/v1/probe').set(bearer)).status).toBe(200);
  });

  test.each(['banned', 'deactivated'])('when the owner is %s then the bearer is refused', async (status) => {
    const u = await createUser(t.ctx.db, { status });
    const res = await request(app).get('/api/v1/probe').set(await authHeaders(t, u));
    expect(res.status).toBe(401);
  });

  test('when the account is signed out everywhere then earlier bearer tokens and cookies are refused', async () => {
    const u = await createUser(t.ctx.db);
    const bearer = await authHeaders(t, u);
    const cookies = await sessionCookies(t, u);
    await globalSignOut(t.ctx, u.id);
    expect((await request(app).get('/api/v1/probe').set(bearer)).status).toBe(401);
    expect((await request(app).get('/api/v1/probe').set(cookies)).status).toBe(401);
    // A new sign-in afterwards works.
    expect((await request(app).get('/api/v1/probe').set(await authHeaders(t, u))).status).toBe(200);
  });

  test('when a cookie-only route gets a bearer then 401 Not authenticated', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(app).get('/api/v1/probe/cookie').set(await authHeaders(t, u));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Not authenticated');
    expect((await request(app).get('/api/v1/probe/cookie').set(await sessionCookies(t, u))).status).toBe(200);
  });

  test('when staff impersonate a user then the actor carries impersonatedBy', async () => {
    const staff = await createUser(t.ctx.db, { roles: ['user', 'staff'] });
    const u = await createUser(t.ctx.db);
    const res = await request(app).get('/api/v1/probe').set(await impersonationCookies(t, staff, u));
    expect(res.body).toEqual({ userId: u.id, credential: 'session', impersonatedBy: staff.id });
  });

  test('when an ak_live_ bearer is sent then it is handed to the API-key resolver', async () => {
    const res = await request(app).get('/api/v1/probe').set('Authorization', `Bearer ak_live_${'0'.repeat(64)}`);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Invalid API key');
  });

  test('when the signing key rotates then tokens signed by the older key still verify and new ones use the new kid', async () => {
    const u = await createUser(t.ctx.db);
    const before = await authHeaders(t, u);
    const oldKid = (await idp.keys.current()).kid;
    await idp.keys.rotate();
    const after = await idp.issueTokensForUser(u.id);
    expect(jwt.decode(after.idToken, { complete: true })!.header.kid).not.toBe(oldKid);
    expect((await request(app).get('/api/v1/probe').set(before)).status).toBe(200);
    const jwks = await idp.keys.jwks();
    expect(jwks.keys.map((k) => k.kid)).toContain(oldKid);
  });
});

describe('credential resolver with an external (Cognito) pool', () => {
  // A stand-in pool: its own RS256 key, issuer and client id, as the Cognito provider exposes them.
  const pool = createTestApp();
  const poolApp = buildContractApp(pool.ctx, [probe]);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issuer = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Test';
  pool.ctx.idp = {
    ...pool.ctx.idp,
    kind: 'cognito',
    verification: { issuer, audience: 'pool-client', jwksUri: `${issuer}/.well-known/jwks.json`, getPublicKey: async (kid: string) => (kid === 'k1' ? publicKey.export({ type: 'spki', format: 'pem' }).toString() : null) },
  } as typeof pool.ctx.idp;
  const idToken = (claims: Record<string, unknown>) =>
    jwt.sign({ token_use: 'id', ...claims }, privateKey, { algorithm: 'RS256', keyid: 'k1', issuer, audience: 'pool-client', expiresIn: 600 });

  test('when a pool ID token with a verified address arrives then it links to the account with that address', async () => {
    const u = await createUser(pool.ctx.db);
    const sub = `cog-${u.id}`;
    const res = await request(poolApp).get('/api/v1/probe').set('Authorization', `Bearer ${idToken({ sub, email: u.email, email_verified: true })}`);
    expect(res.status).toBe(200);
    expect(res.body.userId).toBe(u.id);
    expect((await pool.ctx.db('users').where({ id: u.id }).first()).idp_subject).toBe(sub);
  });

  test('when the pool address is unverified then the token does not claim the account', async () => {
    const u = await createUser(pool.ctx.db);
    const res = await request(poolApp)
      .get('/api/v1/probe')
      .set('Authorization', `Bearer ${idToken({ sub: `cog-${u.id}`, email: u.email, email_verified: false })}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('TOKEN_INVALID');
  });

  test('when the pool token is for another client then 401 TOKEN_INVALID', async () => {
    const u = await createUser(pool.ctx.db);
    const other = jwt.sign({ token_use: 'id', sub: 'x', email: u.email, email_verified: true }, privateKey, { algorithm: 'RS256', keyid: 'k1', issuer, audience: 'someone-else', expiresIn: 600 });
    const res = await request(poolApp).get('/api/v1/probe').set('Authorization', `Bearer ${other}`);
    expect(res.body.code).toBe('TOKEN_INVALID');
  });
});

describe('CSRF protection of cookie sessions', () => {
  test('when a cookie-authenticated POST comes from another origin then 403', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(app).post('/api/v1/probe').set(await sessionCookies(t, u)).set('Origin', 'http://evil.test');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('CSRF_ORIGIN_MISMATCH');
  });

  test('when a cookie-authenticated POST has Sec-Fetch-Site cross-site and no Origin then 403', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(app).post('/api/v1/probe').set(await sessionCookies(t, u)).set('Sec-Fetch-Site', 'cross-site');
    expect(res.status).toBe(403);
  });

  test('when a cookie-authenticated POST comes from SITE_URL then it passes', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(app).post('/api/v1/probe').set(await sessionCookies(t, u)).set('Origin', 'http://site.test');
    expect(res.status).toBe(200);
    expect(res.body.userId).toBe(u.id);
  });

  test('when a bearer POST without cookies comes from another origin then it is not affected', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(app).post('/api/v1/probe').set(await authHeaders(t, u)).set('Origin', 'http://evil.test');
    expect(res.status).toBe(200);
  });

  test('when a cross-site GET carries cookies then it is not affected (safe method)', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(app).get('/api/v1/probe').set(await sessionCookies(t, u)).set('Origin', 'http://evil.test');
    expect(res.status).toBe(200);
  });
});
