import { createHash } from 'node:crypto';
import request from 'supertest';
import { IdpError, LocalIdentityProvider } from '../../src/integrations/idp';
import { issueCode } from '../../src/integrations/idp/codes';
import { issueSessionForUser } from '../../src/modules/idp/session';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, impersonationCookies, sessionCookies, TEST_PASSWORD } from '../helpers/auth';

afterAll(closeDb);

const PASSWORD = 'sturdy-pass-7';
let n = 0;
const newEmail = () => `idp-${Date.now()}-${++n}@example.test`;

interface ParsedCookie {
  name: string;
  value: string;
  attrs: Record<string, string | true>;
}

function parseSetCookies(res: request.Response): Record<string, ParsedCookie> {
  const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
  const out: Record<string, ParsedCookie> = {};
  for (const line of raw ?? []) {
    const [pair, ...rest] = line.split(';').map((s) => s.trim());
    const i = pair!.indexOf('=');
    const attrs: Record<string, string | true> = {};
    for (const a of rest) {
      const j = a.indexOf('=');
      attrs[(j < 0 ? a : a.slice(0, j)).toLowerCase()] = j < 0 ? true : a.slice(j + 1);
    }
    out[pair!.slice(0, i)] = { name: pair!.slice(0, i), value: pair!.slice(i + 1), attrs };
  }
  return out;
}

const isCleared = (c: ParsedCookie | undefined) =>
  Boolean(c) && c!.value === '' && (c!.attrs.expires ? new Date(String(c!.attrs.expires)).getTime() < Date.now() : false);

async function signUp(app: Parameters<typeof request>[0], body: Record<string, unknown>) {
  return request(app).post('/api/v1/idp/signup').send(body);
}

describe('POST /idp/signup', () => {
  const t = createTestApp();

  test('when a new address signs up then 201 with userConfirmed true, no name derived, and a verification mail is queued', async () => {
    const email = newEmail();
    const res = await signUp(t.app, { email, password: PASSWORD });
    expect(res.status).toBe(201);
    expect(res.body.userConfirmed).toBe(true);
    expect(res.body.user).toMatchObject({ email, name: null, role: 'user', email_verified: false });
    expect(JSON.stringify(res.body)).not.toMatch(/eyJ/); // no token strings
    const mails = await t.ctx.db('mail_outbox').where({ to: email });
    expect(mails.length).toBeGreaterThanOrEqual(1);
  });

  test('when the name is given then it is kept', async () => {
    const res = await signUp(t.app, { email: newEmail(), password: PASSWORD, name: 'Ada Lovelace' });
    expect(res.body.user.name).toBe('Ada Lovelace');
  });

  test('when the address exists in another case then 409 EMAIL_ALREADY_REGISTERED', async () => {
    const email = newEmail();
    await signUp(t.app, { email, password: PASSWORD });
    const res = await signUp(t.app, { email: email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('EMAIL_ALREADY_REGISTERED');
  });

  test('when the password has no digit then 400 Password does not meet requirements', async () => {
    const res = await signUp(t.app, { email: newEmail(), password: 'onlyletters' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Password does not meet requirements');
  });

  test('when the password is shorter than 8 then 400 Password does not meet requirements', async () => {
    const res = await signUp(t.app, { email: newEmail(), password: 'ab1' });
    expect(res.body.error).toBe('Password does not meet requirements');
  });

  test('when the email is malformed or missing then 400 with details', async () => {
    const res = await signUp(t.app, { email: 'nope', password: PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.email');
    expect((await signUp(t.app, { password: PASSWORD })).status).toBe(400);
  });

  test('when a valid ambassador invite token is supplied then the account gets the ambassador role, once', async () => {
    const token = `inv-${Date.now()}`;
    await t.ctx.db('ambassador_invites').insert({ token_hash: createHash('sha256').update(token).digest('hex') });
    const res = await signUp(t.app, { email: newEmail(), password: PASSWORD, ambassadorInviteToken: token });
    expect(res.status).toBe(201);
    expect(res.body.user.role).toBe('ambassador');
    const again = await signUp(t.app, { email: newEmail(), password: PASSWORD, ambassadorInviteToken: token });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_INVITE_TOKEN');
  });

  test('when features.user_registration is off then 403 with feature_key', async () => {
    // Flipped on this app only: the flag table is shared with test files running in parallel.
    const off = createTestApp();
    const real = off.ctx.flags.isEnabled.bind(off.ctx.flags);
    off.ctx.flags.isEnabled = async (key: string) => key !== 'features.user_registration' && real(key);
    const email = newEmail();
    const res = await signUp(off.app, { email, password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.feature_key).toBe('features.user_registration');
    expect(await off.ctx.db('users').where({ email }).first()).toBeUndefined();
  });
});

describe('POST /idp/confirm', () => {
  const t = createTestApp();

  test('when the right code is given then 200, and a second use is refused', async () => {
    const u = await createUser(t.ctx.db);
    await t.ctx.db('idp_credentials').insert({ user_id: u.id, password_hash: null, confirmed: false });
    const code = await issueCode(t.ctx.db, u.id, 'confirm_signup', 3600);
    const res = await request(t.app).post('/api/v1/idp/confirm').send({ email: u.email, code });
    expect(res.status).toBe(200);
    expect((await t.ctx.db('idp_credentials').where({ user_id: u.id }).first()).confirmed).toBe(true);
    const again = await request(t.app).post('/api/v1/idp/confirm').send({ email: u.email, code });
    expect(again.body.error).toBe('Invalid verification code');
  });

  test('when a wrong code is given then 400 Invalid verification code', async () => {
    const u = await createUser(t.ctx.db);
    await issueCode(t.ctx.db, u.id, 'confirm_signup', 3600);
    const res = await request(t.app).post('/api/v1/idp/confirm').send({ email: u.email, code: '000000x' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid verification code');
  });

  test('when the code has expired then 400 Verification code expired', async () => {
    const u = await createUser(t.ctx.db);
    const code = await issueCode(t.ctx.db, u.id, 'confirm_signup', 3600);
    await t.ctx.db('idp_codes').where({ user_id: u.id }).update({ expires_at: new Date(Date.now() - 1000) });
    const res = await request(t.app).post('/api/v1/idp/confirm').send({ email: u.email, code });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Verification code expired');
  });
});

describe('POST /idp/signin', () => {
  const t = createTestApp();

  test('when the password is right then 200 { message, user, expiresIn: 3600 } and the three cookies with the spec attributes', async () => {
    const email = newEmail();
    await signUp(t.app, { email, password: PASSWORD, name: 'Sam' });
    const res = await request(t.app).post('/api/v1/idp/signin').send({ email: email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: expect.any(String),
      expiresIn: 3600,
      user: { id: expect.any(String), email, name: 'Sam', avatar: null, role: 'user', email_verified: false, profile_slug: null },
    });
    const c = parseSetCookies(res);
    expect(Object.keys(c).sort()).toEqual(['access_token', 'id_token', 'refresh_token']);
    for (const name of ['access_token', 'id_token']) {
      expect(c[name]!.attrs['max-age']).toBe('3600');
    }
    expect(c.refresh_token!.attrs['max-age']).toBe(String(90 * 24 * 3600));
    for (const k of Object.values(c)) {
      expect(k.attrs.httponly).toBe(true);
      expect(k.attrs.samesite).toBe('Lax');
      expect(k.attrs.path).toBe('/');
      expect(k.attrs.secure).toBeUndefined();
    }
    expect(JSON.stringify(res.body)).not.toContain(c.id_token!.value);
  });

  test('when the password is wrong then 401 and no cookies', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u); // sets TEST_PASSWORD
    const res = await request(t.app).post('/api/v1/idp/signin').send({ email: u.email, password: 'wrong-pass-1' });
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  test('when the account does not exist then 401', async () => {
    const res = await request(t.app).post('/api/v1/idp/signin').send({ email: newEmail(), password: PASSWORD });
    expect(res.status).toBe(401);
  });

  test.each(['suspended', 'banned', 'deactivated'])('when the account is %s then 403 and no cookies', async (status) => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    await t.ctx.db('users').where({ id: u.id }).update({ status });
    const res = await request(t.app).post('/api/v1/idp/signin').send({ email: u.email, password: TEST_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(`ACCOUNT_${status.toUpperCase()}`);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  test('when an operator forced a reset then a NEW_PASSWORD_REQUIRED challenge without cookies, answered by /idp/challenge', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    await t.ctx.idp.forcePasswordReset(u.email);
    const res = await request(t.app).post('/api/v1/idp/signin').send({ email: u.email, password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ challengeRequired: true, challengeName: 'NEW_PASSWORD_REQUIRED', session: expect.any(String) });
    expect(res.headers['set-cookie']).toBeUndefined();
    const answer = await request(t.app)
      .post('/api/v1/idp/challenge')
      .send({ email: u.email, challengeName: 'NEW_PASSWORD_REQUIRED', session: res.body.session, newPassword: 'brand-new-9' });
    expect(answer.status).toBe(200);
    expect(answer.body.user.id).toBe(u.id);
    expect(Object.keys(parseSetCookies(answer))).toContain('id_token');
    const bad = await request(t.app)
      .post('/api/v1/idp/challenge')
      .send({ email: u.email, challengeName: 'NEW_PASSWORD_REQUIRED', session: 'garbage', newPassword: 'brand-new-9' });
    expect(bad.status).toBe(401);
  });

  test('when more than 10 sign-in attempts come from one IP in a minute then 429 from the auth limiter', async () => {
    const fresh = createTestApp();
    let last: request.Response | undefined;
    for (let i = 0; i < 11; i++) last = await request(fresh.app).post('/api/v1/idp/signin').send({ email: 'x@example.test', password: 'nope' });
    expect(last!.status).toBe(429);
    expect(last!.body.error).toBe('Too many authentication attempts, please try again later.');
  });
});

describe('cookies in production', () => {
  const t = createTestApp({ env: { NODE_ENV: 'production' } });

  test('when NODE_ENV=production then every session cookie is Secure', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    const res = await request(t.app).post('/api/v1/idp/signin').send({ email: u.email, password: TEST_PASSWORD });
    const c = parseSetCookies(res);
    expect(Object.keys(c)).toHaveLength(3);
    for (const k of Object.values(c)) expect(k.attrs.secure).toBe(true);
  });
});

describe('POST /idp/refresh', () => {
  const t = createTestApp();

  test('when the refresh cookie is valid then new access and id cookies and { message, expiresIn }, no token in the body', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(t.app).post('/api/v1/idp/refresh').set(await sessionCookies(t, u));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), expiresIn: 3600 });
    const c = parseSetCookies(res);
    expect(Object.keys(c).sort()).toEqual(['access_token', 'id_token']);
    const probe = await request(t.app).get('/api/v1/idp/me').set('Cookie', `id_token=${c.id_token!.value}; access_token=${c.access_token!.value}`);
    expect(probe.body.user.id).toBe(u.id);
  });

  test('when only a token in the body is sent then 401 Session expired, please sign in again (body ignored)', async () => {
    const u = await createUser(t.ctx.db);
    const tokens = await t.ctx.idp.issueTokensForUser(u.id);
    const res = await request(t.app).post('/api/v1/idp/refresh').send({ refreshToken: tokens.refreshToken, refresh_token: tokens.refreshToken });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Session expired, please sign in again');
  });

  test('when the refresh cookie is unknown then 401 and the cookies are cleared', async () => {
    const res = await request(t.app).post('/api/v1/idp/refresh').set('Cookie', 'refresh_token=bogus');
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Session expired, please sign in again');
    const c = parseSetCookies(res);
    for (const name of ['access_token', 'id_token', 'refresh_token']) expect(isCleared(c[name])).toBe(true);
  });

  test('when the identity provider is unreachable then 503 and the cookies are kept', async () => {
    const failing = createTestApp();
    const u = await createUser(failing.ctx.db);
    const cookies = await sessionCookies(failing, u);
    failing.ctx.idp.refresh = async () => {
      throw new IdpError('unreachable', 'connect ECONNREFUSED');
    };
    const res = await request(failing.app).post('/api/v1/idp/refresh').set(cookies);
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('Auth service temporarily unavailable, please retry');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  test('when the local provider cannot reach its store then 503 and the cookies are kept', async () => {
    const failing = createTestApp();
    const u = await createUser(failing.ctx.db);
    const cookies = await sessionCookies(failing, u);
    const local = failing.ctx.idp as LocalIdentityProvider;
    // Every query of the provider's store fails as a lost connection would.
    const broken = (() => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    }) as unknown as ConstructorParameters<typeof LocalIdentityProvider>[0];
    Object.assign(local, { db: broken });
    const res = await request(failing.app).post('/api/v1/idp/refresh').set(cookies);
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('Auth service temporarily unavailable, please retry');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  test('when the account was suspended then refresh answers 401 and clears cookies', async () => {
    const u = await createUser(t.ctx.db);
    const cookies = await sessionCookies(t, u);
    await t.ctx.db('users').where({ id: u.id }).update({ status: 'suspended' });
    const res = await request(t.app).post('/api/v1/idp/refresh').set(cookies);
    expect(res.status).toBe(401);
    expect(isCleared(parseSetCookies(res).refresh_token)).toBe(true);
  });
});

describe('GET /idp/me', () => {
  const t = createTestApp();

  test('when the cookie session is valid then { user } with the session user fields', async () => {
    const u = await createUser(t.ctx.db, { name: 'Mia' });
    const res = await request(t.app).get('/api/v1/idp/me').set(await sessionCookies(t, u));
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: u.id, email: u.email, name: 'Mia', role: 'user', email_verified: true });
    expect(res.body.user.is_impersonating).toBeUndefined();
  });

  test('when only the refresh cookie is left then the session is renewed transparently', async () => {
    const u = await createUser(t.ctx.db);
    const cookies = (await sessionCookies(t, u)).Cookie!;
    const refreshOnly = cookies.split('; ').find((p) => p.startsWith('refresh_token='))!;
    const res = await request(t.app).get('/api/v1/idp/me').set('Cookie', refreshOnly);
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(u.id);
    expect(Object.keys(parseSetCookies(res)).sort()).toEqual(['access_token', 'id_token']);
  });

  test('when the id cookie is expired garbage and there is no refresh cookie then 401 and cookies cleared', async () => {
    const res = await request(t.app).get('/api/v1/idp/me').set('Cookie', 'id_token=abc; access_token=def');
    expect(res.status).toBe(401);
    expect(isCleared(parseSetCookies(res).id_token)).toBe(true);
  });

  test('when a bearer ID token is sent without cookies then 401 Not authenticated and the cookies are cleared', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(t.app).get('/api/v1/idp/me').set(await authHeaders(t, u));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Not authenticated');
    const c = parseSetCookies(res);
    for (const name of ['access_token', 'id_token', 'refresh_token']) expect(isCleared(c[name])).toBe(true);
  });

  test('when the cookies are valid but a bearer of another account is also sent then the cookies decide', async () => {
    const u = await createUser(t.ctx.db);
    const other = await createUser(t.ctx.db);
    const res = await request(t.app)
      .get('/api/v1/idp/me')
      .set(await sessionCookies(t, u))
      .set('Authorization', (await authHeaders(t, other)).Authorization!);
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(u.id);
  });

  test('when staff view the account on the user’s behalf then is_impersonating and impersonated_by are carried', async () => {
    const staff = await createUser(t.ctx.db, { roles: ['user', 'staff'] });
    const u = await createUser(t.ctx.db);
    const res = await request(t.app).get('/api/v1/idp/me').set(await impersonationCookies(t, staff, u));
    expect(res.body.user).toMatchObject({ id: u.id, is_impersonating: true, impersonated_by: staff.id });
  });
});

describe('POST /idp/logout', () => {
  const t = createTestApp();

  test('when signed in then 200, cookies cleared, every session of the account ended', async () => {
    const u = await createUser(t.ctx.db);
    const browser = await sessionCookies(t, u);
    const otherDevice = await sessionCookies(t, u);
    const bearer = await authHeaders(t, u);
    expect((await request(t.app).get('/api/v1/me/capabilities').set(bearer)).status).toBe(200);
    const res = await request(t.app).post('/api/v1/idp/logout').set(browser);
    expect(res.status).toBe(200);
    const c = parseSetCookies(res);
    for (const name of ['access_token', 'id_token', 'refresh_token']) expect(isCleared(c[name])).toBe(true);
    expect((await request(t.app).get('/api/v1/idp/me').set(otherDevice)).status).toBe(401);
    expect((await request(t.app).post('/api/v1/idp/refresh').set(browser)).status).toBe(401);
    // Bearer ID tokens issued before the global sign-out stop too (checked on a bearer route).
    const caps = await request(t.app).get('/api/v1/me/capabilities').set(bearer);
    expect(caps.status).toBe(401);
    expect(caps.body.code).toBe('TOKEN_INVALID');
    const sessions = await t.ctx.db('idp_sessions').where({ user_id: u.id }).whereNull('revoked_at');
    expect(sessions).toHaveLength(0);
  });

  test('when only the refresh cookie is left then 200 and every session of the account still ends', async () => {
    const u = await createUser(t.ctx.db);
    const browser = (await sessionCookies(t, u)).Cookie!;
    const otherDevice = await sessionCookies(t, u);
    const refreshOnly = browser.split('; ').find((p) => p.startsWith('refresh_token='))!;
    const res = await request(t.app).post('/api/v1/idp/logout').set('Cookie', refreshOnly).set('Origin', t.ctx.config.SITE_URL);
    expect(res.status).toBe(200);
    expect((await request(t.app).get('/api/v1/idp/me').set(otherDevice)).status).toBe(401);
    expect(await t.ctx.db('idp_sessions').where({ user_id: u.id }).whereNull('revoked_at')).toHaveLength(0);
  });

  test('when a cross-site page posts logout with the cookies then still 200 with cookies cleared, but no session is ended', async () => {
    const u = await createUser(t.ctx.db);
    const browser = await sessionCookies(t, u);
    const res = await request(t.app).post('/api/v1/idp/logout').set(browser).set('Origin', 'https://evil.example');
    expect(res.status).toBe(200);
    const c = parseSetCookies(res);
    for (const name of ['access_token', 'id_token', 'refresh_token']) expect(isCleared(c[name])).toBe(true);
    // The attacker cannot sign the account out of its devices.
    expect((await request(t.app).get('/api/v1/idp/me').set(browser)).status).toBe(200);
  });

  test('when not signed in then still 200', async () => {
    const res = await request(t.app).post('/api/v1/idp/logout');
    expect(res.status).toBe(200);
  });

  test('when the identity provider fails then still 200 with cookies cleared', async () => {
    const failing = createTestApp();
    const u = await createUser(failing.ctx.db);
    const cookies = await sessionCookies(failing, u);
    failing.ctx.idp.globalSignOut = async () => {
      throw new IdpError('unreachable', 'down');
    };
    failing.ctx.idp.revokeRefreshToken = failing.ctx.idp.globalSignOut;
    const res = await request(failing.app).post('/api/v1/idp/logout').set(cookies);
    expect(res.status).toBe(200);
    expect(isCleared(parseSetCookies(res).id_token)).toBe(true);
  });
});

test('when issueSessionForUser signs a user in (social callback) then the three cookies are set and /idp/me answers', async () => {
  const t = createTestApp();
  const u = await createUser(t.ctx.db, { name: 'Social Sam' });
  const express = (await import('express')).default;
  const app = express();
  app.get('/cb', async (_req, res) => {
    const user = await issueSessionForUser(t.ctx, res, u.id);
    res.json(user);
  });
  const res = await request(app).get('/cb');
  expect(res.body).toMatchObject({ id: u.id, name: 'Social Sam', role: 'user' });
  const c = parseSetCookies(res);
  expect(Object.keys(c).sort()).toEqual(['access_token', 'id_token', 'refresh_token']);
  const me = await request(t.app).get('/api/v1/idp/me').set('Cookie', Object.values(c).map((k) => `${k.name}=${k.value}`).join('; '));
  expect(me.body.user.id).toBe(u.id);
});

test('when the local IdP signs tokens then they carry Cognito claims', async () => {
  const t = createTestApp();
  const u = await createUser(t.ctx.db);
  const idp = t.ctx.idp as LocalIdentityProvider;
  const tokens = await idp.issueTokensForUser(u.id);
  const id = (await idp.verifyOwnToken(tokens.idToken))!;
  const access = (await idp.verifyOwnToken(tokens.accessToken))!;
  expect(id).toMatchObject({ sub: u.id, iss: 'http://api.test/local-idp', token_use: 'id', aud: 'local-app-client', email: u.email, email_verified: true });
  expect(id.exp! - id.iat!).toBe(3600);
  expect(typeof id.auth_time).toBe('number');
  expect(access).toMatchObject({ sub: u.id, token_use: 'access', client_id: 'local-app-client' });
  expect(access.aud).toBeUndefined();
  const row = await t.ctx.db('idp_sessions').where({ id: id.origin_jti }).first();
  expect(row.refresh_token_hash).toBe(createHash('sha256').update(tokens.refreshToken!).digest('hex'));
  expect(JSON.stringify(row)).not.toContain(tokens.refreshToken);
});
