import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, impersonationCookies, mintedSessionCookies, sessionCookies, TEST_PASSWORD } from '../helpers/auth';

afterAll(closeDb);

/** The 6-digit code of the newest password-reset mail to `to` (from the mail outbox). */
async function resetCodeFor(t: ReturnType<typeof createTestApp>, to: string): Promise<string> {
  const mail = await t.ctx.db('mail_outbox').where({ to, template: 'password_reset' }).orderBy('created_at', 'desc').first();
  const m = /\b(\d{6})\b/.exec(String(mail?.text ?? ''));
  if (!m) throw new Error(`no reset code mailed to ${to}`);
  return m[1]!;
}

const signIn = (t: ReturnType<typeof createTestApp>, email: string, password: string) =>
  request(t.app).post('/api/v1/idp/signin').send({ email, password });

describe('POST /idp/forgot-password and /idp/reset-password', () => {
  // A fresh app (own limiter buckets) per test: each flow makes several auth-limited calls.
  let t = createTestApp();
  beforeEach(() => {
    t = createTestApp();
  });

  test('when the account exists then 200 and a 6-digit code is mailed; the code resets the password once', async () => {
    const u = await createUser(t.ctx.db);
    const oldSession = await sessionCookies(t, u);
    const res = await request(t.app).post('/api/v1/idp/forgot-password').send({ email: u.email.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body.message).toEqual(expect.any(String));
    const code = await resetCodeFor(t, u.email);
    const reset = await request(t.app).post('/api/v1/idp/reset-password').send({ email: u.email, code, newPassword: 'fresh-start-5' });
    expect(reset.status).toBe(200);
    expect((await signIn(t, u.email, 'fresh-start-5')).status).toBe(200);
    expect((await signIn(t, u.email, TEST_PASSWORD)).status).toBe(401);
    // Sessions that existed before the reset are ended.
    expect((await request(t.app).get('/api/v1/idp/me').set(oldSession)).status).toBe(401);
    const again = await request(t.app).post('/api/v1/idp/reset-password').send({ email: u.email, code, newPassword: 'another-one-6' });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('Invalid verification code');
  });

  test('when the account does not exist then still 200 and nothing is mailed', async () => {
    const email = `ghost-${Date.now()}@example.test`;
    const res = await request(t.app).post('/api/v1/idp/forgot-password').send({ email });
    expect(res.status).toBe(200);
    expect(await t.ctx.db('mail_outbox').where({ to: email })).toHaveLength(0);
  });

  test('when the code is wrong then 400 Invalid verification code', async () => {
    const u = await createUser(t.ctx.db);
    await request(t.app).post('/api/v1/idp/forgot-password').send({ email: u.email });
    const code = await resetCodeFor(t, u.email);
    const wrong = code === '000000' ? '111111' : '000000';
    const res = await request(t.app).post('/api/v1/idp/reset-password').send({ email: u.email, code: wrong, newPassword: 'fresh-start-5' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid verification code');
  });

  test('when the code is older than an hour then 400 Verification code expired', async () => {
    const u = await createUser(t.ctx.db);
    await request(t.app).post('/api/v1/idp/forgot-password').send({ email: u.email });
    const code = await resetCodeFor(t, u.email);
    await t.ctx.db('idp_codes').where({ user_id: u.id, purpose: 'password_reset' }).update({ expires_at: new Date(Date.now() - 1000) });
    const res = await request(t.app).post('/api/v1/idp/reset-password').send({ email: u.email, code, newPassword: 'fresh-start-5' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Verification code expired');
  });

  test('when the new password breaks the policy then 400 Password does not meet requirements and the code survives', async () => {
    const u = await createUser(t.ctx.db);
    await request(t.app).post('/api/v1/idp/forgot-password').send({ email: u.email });
    const code = await resetCodeFor(t, u.email);
    const res = await request(t.app).post('/api/v1/idp/reset-password').send({ email: u.email, code, newPassword: 'short' });
    expect(res.body.error).toBe('Password does not meet requirements');
    const ok = await request(t.app).post('/api/v1/idp/reset-password').send({ email: u.email, code, newPassword: 'long-enough-1' });
    expect(ok.status).toBe(200);
  });

  test('when a new code is requested then the older one stops working', async () => {
    const u = await createUser(t.ctx.db);
    await request(t.app).post('/api/v1/idp/forgot-password').send({ email: u.email });
    const first = await resetCodeFor(t, u.email);
    await t.ctx.db('mail_outbox').where({ to: u.email }).del();
    await request(t.app).post('/api/v1/idp/forgot-password').send({ email: u.email });
    const second = await resetCodeFor(t, u.email);
    if (first !== second) {
      const res = await request(t.app).post('/api/v1/idp/reset-password').send({ email: u.email, code: first, newPassword: 'long-enough-1' });
      expect(res.body.error).toBe('Invalid verification code');
    }
    expect((await request(t.app).post('/api/v1/idp/reset-password').send({ email: u.email, code: second, newPassword: 'long-enough-1' })).status).toBe(200);
  });
});

describe('POST /idp/change-password', () => {
  let t = createTestApp();
  beforeEach(() => {
    t = createTestApp();
  });

  test('when the cookie session gives the right current password then 200 and the new password works', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(t.app)
      .post('/api/v1/idp/change-password')
      .set(await sessionCookies(t, u))
      .send({ currentPassword: TEST_PASSWORD, newPassword: 'changed-pass-3' });
    expect(res.status).toBe(200);
    expect((await signIn(t, u.email, 'changed-pass-3')).status).toBe(200);
  });

  test('when the current password is wrong then 400', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(t.app)
      .post('/api/v1/idp/change-password')
      .set(await sessionCookies(t, u))
      .send({ currentPassword: 'not-it-123', newPassword: 'changed-pass-3' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INCORRECT_PASSWORD');
  });

  test('when the new password breaks the policy then 400 Password does not meet requirements', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(t.app)
      .post('/api/v1/idp/change-password')
      .set(await sessionCookies(t, u))
      .send({ currentPassword: TEST_PASSWORD, newPassword: 'nodigits' });
    expect(res.body.error).toBe('Password does not meet requirements');
  });

  test('when a bearer ID token is used then 401 Not authenticated', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(t.app)
      .post('/api/v1/idp/change-password')
      .set(await authHeaders(t, u))
      .send({ currentPassword: TEST_PASSWORD, newPassword: 'changed-pass-3' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Not authenticated');
  });

  test('when a valid API key is used then 401 Not authenticated and the password is unchanged', async () => {
    const u = await createUser(t.ctx.db);
    const created = await request(t.app).post('/api/v1/api-keys').set(await sessionCookies(t, u)).send({ name: 'script' });
    expect(created.status).toBe(201);
    const res = await request(t.app)
      .post('/api/v1/idp/change-password')
      .set('Authorization', `Bearer ${created.body.api_key}`)
      .send({ currentPassword: TEST_PASSWORD, newPassword: 'changed-pass-3' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Not authenticated');
    expect((await signIn(t, u.email, TEST_PASSWORD)).status).toBe(200);
  });

  test('when any other bearer is sent (unknown API key, access token, garbage) then 401 Not authenticated, not a token error', async () => {
    const u = await createUser(t.ctx.db);
    const accessToken = /access_token=([^;]+)/.exec((await sessionCookies(t, u)).Cookie!)![1]!;
    for (const bearer of [`ak_live_${'a'.repeat(64)}`, accessToken, 'not.a.jwt']) {
      const res = await request(t.app)
        .post('/api/v1/idp/change-password')
        .set('Authorization', `Bearer ${bearer}`)
        .send({ currentPassword: TEST_PASSWORD, newPassword: 'changed-pass-3' });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Not authenticated');
    }
  });

  test('when the account came from a social provider (no password) then 400 NO_PASSWORD', async () => {
    const u = await createUser(t.ctx.db);
    const social = await mintedSessionCookies(t, u);
    const res = await request(t.app)
      .post('/api/v1/idp/change-password')
      .set(social)
      .send({ currentPassword: 'whatever-1', newPassword: 'changed-pass-3' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('NO_PASSWORD');
  });

  test('when staff impersonate the user then 403', async () => {
    const staff = await createUser(t.ctx.db, { roles: ['user', 'staff'] });
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    const res = await request(t.app)
      .post('/api/v1/idp/change-password')
      .set(await impersonationCookies(t, staff, u))
      .send({ currentPassword: TEST_PASSWORD, newPassword: 'changed-pass-3' });
    expect(res.status).toBe(403);
  });

  test('when more than 10 attempts come from one IP in a minute then 429 from the auth limiter', async () => {
    const u = await createUser(t.ctx.db);
    const cookies = await sessionCookies(t, u);
    let last: request.Response | undefined;
    for (let i = 0; i < 11; i++) {
      last = await request(t.app).post('/api/v1/idp/change-password').set(cookies).send({ currentPassword: 'x', newPassword: 'y' });
    }
    expect(last!.status).toBe(429);
  });

  test('when the body is missing fields then 400 with details', async () => {
    const u = await createUser(t.ctx.db);
    const res = await request(t.app).post('/api/v1/idp/change-password').set(await sessionCookies(t, u)).send({});
    expect(res.status).toBe(400);
    expect(res.body.details.length).toBeGreaterThan(0);
  });
});
