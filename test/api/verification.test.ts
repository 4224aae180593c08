import request from 'supertest';
import { buildContractApp, closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createDb } from '../../src/db/knex';
import { sendEmailVerification } from '../../src/modules/verification/verification.service';

afterAll(closeDb);

const SITE = 'http://site.test';
const LINK_PREFIX = 'http://api.test/api/v1/idp/verify-email?token=';

/** The newest verification link mailed to `to` (read from the outbox: every mail is kept there). */
async function latestLink(to: string): Promise<string> {
  const row = await testDb()('mail_outbox').where({ to }).orderBy('created_at', 'desc').first();
  expect(row).toBeDefined();
  const m = /(http:\/\/api\.test\/api\/v1\/idp\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(row.text);
  expect(m).not.toBeNull();
  expect(row.html).toContain(m![1]);
  return m![1];
}
const tokenOf = (link: string) => link.slice(LINK_PREFIX.length);
const mailsTo = async (to: string) => (await testDb()('mail_outbox').where({ to })).length;

describe('GET /idp/verify-email', () => {
  const t = createTestApp();

  async function unverifiedWithLink(locale = 'en') {
    const user = await createUser(testDb(), { email_verified: false });
    await testDb()('users').where({ id: user.id }).update({ locale });
    await testDb().transaction((trx) => sendEmailVerification(t.ctx, trx, { ...user, locale }));
    return { user, link: await latestLink(user.email) };
  }

  const follow = (token?: string) =>
    request(t.app).get('/api/v1/idp/verify-email').query(token === undefined ? {} : { token });

  test('when a fresh link is followed then 302 to the site with success and the address is verified', async () => {
    const { user, link } = await unverifiedWithLink();
    expect(link.startsWith(LINK_PREFIX)).toBe(true);
    const res = await follow(tokenOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${SITE}/?verification=success`);
    expect(res.headers['content-type'] ?? '').not.toMatch(/json/);
    expect(res.headers['ratelimit-limit']).toBe('300');
    const row = await testDb()('users').where({ id: user.id }).first();
    expect(row.email_verified).toBe(true);
    expect(row.email_verified_at).toBeInstanceOf(Date);
  });

  test('when the mail is in the user locale then its subject is localised', async () => {
    const { user } = await unverifiedWithLink('ru');
    const row = await testDb()('mail_outbox').where({ to: user.email }).first();
    expect(row).toMatchObject({ locale: 'ru', subject: 'Подтвердите адрес электронной почты', template: 'email_verification' });
  });

  test('when a link is followed twice then the second answers failed', async () => {
    const { link } = await unverifiedWithLink();
    expect((await follow(tokenOf(link))).headers.location).toBe(`${SITE}/?verification=success`);
    expect((await follow(tokenOf(link))).headers.location).toBe(`${SITE}/?verification=failed`);
  });

  test('when there is no token then invalid', async () => {
    const res = await follow();
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${SITE}/?verification=invalid`);
    expect((await follow('')).headers.location).toBe(`${SITE}/?verification=invalid`);
  });

  test('when the token is unknown then failed', async () => {
    expect((await follow('nope-not-a-token')).headers.location).toBe(`${SITE}/?verification=failed`);
  });

  test('when the link is older than 24 hours then failed and the address stays unverified', async () => {
    const { user, link } = await unverifiedWithLink();
    await testDb()('verification_tokens').where({ user_id: user.id }).update({ expires_at: testDb().raw(`now() - interval '1 second'`) });
    expect((await follow(tokenOf(link))).headers.location).toBe(`${SITE}/?verification=failed`);
    expect((await testDb()('users').where({ id: user.id }).first()).email_verified).toBe(false);
  });

  test('when a link is issued then it expires 24 hours later and only its hash is stored', async () => {
    const { user, link } = await unverifiedWithLink();
    const tok = await testDb()('verification_tokens').where({ user_id: user.id }).first();
    const hours = (tok.expires_at.getTime() - tok.created_at.getTime()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.99);
    expect(hours).toBeLessThan(24.01);
    expect(JSON.stringify(tok)).not.toContain(tokenOf(link));
  });

  test('when a new link is sent then the old one no longer works and the new one does', async () => {
    const { user, link: first } = await unverifiedWithLink();
    await testDb().transaction((trx) => sendEmailVerification(t.ctx, trx, user));
    const second = await latestLink(user.email);
    expect(second).not.toBe(first);
    expect((await follow(tokenOf(first))).headers.location).toBe(`${SITE}/?verification=failed`);
    expect((await follow(tokenOf(second))).headers.location).toBe(`${SITE}/?verification=success`);
  });

  test('when something unexpected fails then error', async () => {
    // Same app wiring, but a database nobody listens on: the lookup itself fails.
    const dead = createDb('postgres://postgres@127.0.0.1:1/unreachable', { max: 1 });
    const quiet = jest.spyOn(console, 'log').mockImplementation(() => undefined); // knex logs the refused connection
    try {
      const app = buildContractApp({ ...t.ctx, db: dead });
      const res = await request(app).get('/api/v1/idp/verify-email').query({ token: 'whatever-token' });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`${SITE}/?verification=error`);
    } finally {
      quiet.mockRestore();
      await dead.destroy();
    }
  });
});

describe('POST /idp/resend-verification', () => {
  const message = expect.stringMatching(/verification link/);

  test('when the address matches an unverified account in another case then 200 and a new link is mailed', async () => {
    const t = createTestApp();
    const user = await createUser(testDb(), { email_verified: false });
    const res = await request(t.app).post('/api/v1/idp/resend-verification').send({ email: user.email.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message });
    const link = await latestLink(user.email);
    const follow = await request(t.app).get('/api/v1/idp/verify-email').query({ token: tokenOf(link) });
    expect(follow.headers.location).toBe(`${SITE}/?verification=success`);
  });

  test('when the account is already verified then the same 200 and no mail', async () => {
    const t = createTestApp();
    const user = await createUser(testDb(), { email_verified: true });
    const res = await request(t.app).post('/api/v1/idp/resend-verification').send({ email: user.email });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message });
    expect(await mailsTo(user.email)).toBe(0);
  });

  test('when the address is unknown or malformed then the same 200 and no mail', async () => {
    const t = createTestApp();
    const a = await request(t.app).post('/api/v1/idp/resend-verification').send({ email: 'nobody-here@example.test' });
    const b = await request(t.app).post('/api/v1/idp/resend-verification').send({ email: 'not an address' });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body).toEqual(a.body);
    expect(await mailsTo('nobody-here@example.test')).toBe(0);
  });

  test('when email is missing then 400 with details', async () => {
    const t = createTestApp();
    const res = await request(t.app).post('/api/v1/idp/resend-verification').send({});
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.email');
  });

  test('when called a sixth time in a minute then 429 with the verification-resend message', async () => {
    const t = createTestApp();
    for (let i = 0; i < 5; i += 1) {
      const ok = await request(t.app).post('/api/v1/idp/resend-verification').send({ email: 'x@example.test' });
      expect(ok.status).toBe(200);
    }
    const res = await request(t.app).post('/api/v1/idp/resend-verification').send({ email: 'x@example.test' });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      error: 'You have requested several verification emails in a row. Please wait a minute and try again.',
      retryAfter: 60,
    });
    expect(res.headers['ratelimit-policy']).toBe('5;w=60');
    expect(res.headers['retry-after']).toBeDefined();
  });
});
