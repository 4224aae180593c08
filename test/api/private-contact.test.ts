import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';

afterAll(closeDb);

const SITE = 'http://site.test';
const contact = () => `contact-${randomUUID().slice(0, 8)}@example.test`;

async function latestToken(to: string): Promise<string> {
  const row = await testDb()('mail_outbox').where({ to }).orderBy('created_at', 'desc').first();
  expect(row).toBeDefined();
  expect(row.template).toBe('private_contact_verification');
  const m = /idp\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(row.text);
  expect(m).not.toBeNull();
  expect(row.html).toContain(m![1]);
  return m![1];
}
const userRow = (u: TestUser) => testDb()('users').where({ id: u.id }).first();

describe('PUT /users/me/private-contact', () => {
  const t = createTestApp();
  const put = async (u: TestUser, email: unknown) =>
    request(t.app).put('/api/v1/users/me/private-contact').set(await authHeaders(t, u)).send({ email });
  const follow = (token: string) => request(t.app).get('/api/v1/idp/verify-email').query({ token });

  test('when a signed-in user sets an address then it is stored unverified and a verification link is mailed', async () => {
    const u = await createUser(testDb(), { email_verified: false });
    const email = contact();
    const res = await put(u, email);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: expect.any(String),
      sent: true,
      already_verified: false,
      data: { private_contact_email: email, private_contact_verified: false },
    });
    expect(res.headers['ratelimit-limit']).toBe('5');
    const row = await userRow(u);
    expect(row.private_contact_email).toBe(email);
    expect(row.private_contact_verified_at).toBeNull();

    const token = await latestToken(email);
    const v = await follow(token);
    expect(v.headers.location).toBe(`${SITE}/?verification=success`);
    const after = await userRow(u);
    expect(after.private_contact_verified_at).toBeInstanceOf(Date);
    expect(after.email_verified).toBe(false); // the login address has its own verification
  });

  test('when the same verified address is set again then nothing is sent and it stays verified', async () => {
    const u = await createUser(testDb(), { private_contact_verified: true });
    const current = (await userRow(u)).private_contact_email as string;
    const res = await put(u, current.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sent: false, already_verified: true });
    expect((await userRow(u)).private_contact_verified_at).toBeInstanceOf(Date);
    expect(await testDb()('mail_outbox').whereRaw('lower("to") = lower(?)', [current])).toHaveLength(0);
  });

  test('when a verified user sets a different address then it becomes unverified again', async () => {
    const u = await createUser(testDb(), { private_contact_verified: true });
    const email = contact();
    const res = await put(u, email);
    expect(res.body).toMatchObject({ sent: true, data: { private_contact_email: email, private_contact_verified: false } });
    expect((await userRow(u)).private_contact_verified_at).toBeNull();
  });

  test('when another account already verified the address then the link answers contact_taken', async () => {
    const a = await createUser(testDb());
    const b = await createUser(testDb());
    const email = contact();
    await put(a, email);
    expect((await follow(await latestToken(email))).headers.location).toBe(`${SITE}/?verification=success`);
    await put(b, email);
    expect((await follow(await latestToken(email))).headers.location).toBe(`${SITE}/?verification=contact_taken`);
    expect((await userRow(b)).private_contact_verified_at).toBeNull();
  });

  test('when the address is malformed or missing then 400 with details', async () => {
    const u = await createUser(testDb());
    const bad = await put(u, 'not-an-email');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('body.email');
    const missing = await request(t.app).put('/api/v1/users/me/private-contact').set(await authHeaders(t, u)).send({});
    expect(missing.status).toBe(400);
  });

  test('when there is no credential then 401', async () => {
    const res = await request(t.app).put('/api/v1/users/me/private-contact').send({ email: contact() });
    expect(res.status).toBe(401);
  });
});

describe('POST /users/me/private-contact/resend', () => {
  const t = createTestApp();
  const resend = async (u: TestUser) =>
    request(t.app).post('/api/v1/users/me/private-contact/resend').set(await authHeaders(t, u));

  test('when the address is unverified then a new link is sent and the old one stops working', async () => {
    const u = await createUser(testDb());
    const email = contact();
    await request(t.app).put('/api/v1/users/me/private-contact').set(await authHeaders(t, u)).send({ email });
    const first = await latestToken(email);
    const res = await resend(u);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sent: true, already_verified: false });
    const second = await latestToken(email);
    expect(second).not.toBe(first);
    const old = await request(t.app).get('/api/v1/idp/verify-email').query({ token: first });
    expect(old.headers.location).toBe(`${SITE}/?verification=failed`);
    const ok = await request(t.app).get('/api/v1/idp/verify-email').query({ token: second });
    expect(ok.headers.location).toBe(`${SITE}/?verification=success`);
  });

  test('when the address is already verified then it says so and sends nothing', async () => {
    const u = await createUser(testDb(), { private_contact_verified: true });
    const res = await resend(u);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sent: false, already_verified: true });
  });

  test('when no address is set then 400 PRIVATE_CONTACT_MISSING', async () => {
    const u = await createUser(testDb());
    const res = await resend(u);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('PRIVATE_CONTACT_MISSING');
  });

  test('when there is no credential then 401', async () => {
    expect((await request(t.app).post('/api/v1/users/me/private-contact/resend')).status).toBe(401);
  });
});

describe('verification resend bucket', () => {
  test('when set and resend are called six times in a minute then the sixth answers 429', async () => {
    const t = createTestApp();
    const u = await createUser(testDb());
    const h = await authHeaders(t, u);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push((await request(t.app).put('/api/v1/users/me/private-contact').set(h).send({ email: contact() })).status);
      statuses.push((await request(t.app).post('/api/v1/users/me/private-contact/resend').set(h)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const res = await request(t.app).put('/api/v1/users/me/private-contact').set(h).send({ email: contact() });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      error: 'You have requested several verification emails in a row. Please wait a minute and try again.',
      retryAfter: 60,
    });
  });

  test('when a signed-in caller also uses /idp/resend-verification then all three routes draw on one bucket of 5', async () => {
    const t = createTestApp();
    const u = await createUser(testDb(), { email_verified: false });
    const h = await authHeaders(t, u);
    const statuses: number[] = [];
    statuses.push((await request(t.app).post('/api/v1/idp/resend-verification').set(h).send({ email: u.email })).status);
    statuses.push((await request(t.app).put('/api/v1/users/me/private-contact').set(h).send({ email: contact() })).status);
    statuses.push((await request(t.app).post('/api/v1/users/me/private-contact/resend').set(h)).status);
    statuses.push((await request(t.app).post('/api/v1/idp/resend-verification').set(h).send({ email: u.email })).status);
    const fifth = await request(t.app).post('/api/v1/users/me/private-contact/resend').set(h);
    statuses.push(fifth.status);
    expect(fifth.headers['ratelimit-limit']).toBe('5');
    expect(fifth.headers['ratelimit-remaining']).toBe('0');
    const sixth = await request(t.app).post('/api/v1/idp/resend-verification').set(h).send({ email: u.email });
    statuses.push(sixth.status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(sixth.body.error).toBe('You have requested several verification emails in a row. Please wait a minute and try again.');
  });

  test('when one user has used the bucket then another user still gets through (counted per user)', async () => {
    const t = createTestApp();
    const a = await createUser(testDb());
    const b = await createUser(testDb());
    const ha = await authHeaders(t, a);
    for (let i = 0; i < 6; i += 1) await request(t.app).post('/api/v1/users/me/private-contact/resend').set(ha);
    expect((await request(t.app).post('/api/v1/users/me/private-contact/resend').set(ha)).status).toBe(429);
    const other = await request(t.app).post('/api/v1/users/me/private-contact/resend').set(await authHeaders(t, b));
    expect(other.status).toBe(400); // no address set, but not rate limited
  });
});
