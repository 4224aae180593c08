import request from 'supertest';
import { LOCAL_CLIENT_ID } from '../../src/integrations/idp';
import { pruneSignInThrottle, recordSignInFailure, throttledFor } from '../../src/modules/idp/sign-in-throttle';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser, sessionCookies, TEST_PASSWORD } from '../helpers/auth';

// docs/decisions/0019-per-account-sign-in-throttle.md (CAPTCHA_SECRET unset, the default).

let t: TestApp;
beforeAll(() => {
  t = createTestApp({ env: { TRUST_PROXY: 'true' } });
});
afterAll(closeDb);

let ipSeq = 0;
// A new IP per attempt: the per-IP auth limiter never answers, only the per-account throttle can.
const nextIp = () => `198.51.100.${(ipSeq = (ipSeq % 250) + 1)}`;

const signIn = (email: string, password: string) =>
  request(t.app).post('/api/v1/idp/signin').set('X-Forwarded-For', nextIp()).send({ email, password });

const cognitoSignIn = (email: string, password: string) =>
  request(t.app)
    .post('/local-idp/')
    .set('X-Forwarded-For', nextIp())
    .set('X-Amz-Target', 'AWSCognitoIdentityProviderService.InitiateAuth')
    .set('Content-Type', 'application/x-amz-json-1.1')
    .send(JSON.stringify({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: password } }));

async function account(): Promise<string> {
  const u = await createUser(t.ctx.db);
  await sessionCookies(t, u); // sets TEST_PASSWORD
  return u.email;
}

/** Ends the account's current delay, as if it had been waited out. */
const waitOut = (email: string) =>
  testDb().raw(`update sign_in_throttle set blocked_until = now() - interval '1 second' where account_key = encode(sha256(convert_to(lower(?), 'UTF8')), 'hex')`, [email]);

describe('per-account sign-in throttle', () => {
  test('when 5 wrong passwords come from 5 IPs, then the right one is refused with 429, retryAfter and Retry-After', async () => {
    const email = await account();
    for (let i = 0; i < 5; i++) expect((await signIn(email, 'Wrong1password')).status).toBe(401);
    const res = await signIn(email, TEST_PASSWORD);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'Too many authentication attempts, please try again later.', retryAfter: 1, request_id: res.headers['x-request-id'] });
    expect(res.headers['retry-after']).toBe('1');
  });

  test('when the delay has passed, then the right password signs in and the count starts again', async () => {
    const email = await account();
    for (let i = 0; i < 5; i++) await signIn(email, 'Wrong1password');
    await waitOut(email);
    expect((await signIn(email, TEST_PASSWORD)).status).toBe(200);
    // Reset: four more failures do not throttle.
    for (let i = 0; i < 4; i++) expect((await signIn(email, 'Wrong1password')).status).toBe(401);
    expect((await signIn(email, TEST_PASSWORD)).status).toBe(200);
  });

  test('when failures go on, then the delay doubles from 1 s and stops at 15 minutes', async () => {
    const email = `nobody-${Date.now()}@example.test`;
    const waits: number[] = [];
    for (let n = 1; n <= 20; n++) {
      await recordSignInFailure(t.ctx.db, email);
      waits.push(await throttledFor(t.ctx.db, email));
    }
    expect(waits.slice(0, 9)).toEqual([0, 0, 0, 0, 1, 2, 4, 8, 16]);
    expect(waits[19]).toBe(900);
  });

  test('when failures mix /idp/signin and /local-idp/, then both count and the Cognito route answers "Password attempts exceeded"', async () => {
    const email = await account();
    for (let i = 0; i < 3; i++) expect((await signIn(email, 'Wrong1password')).status).toBe(401);
    for (let i = 0; i < 2; i++) expect(JSON.parse((await cognitoSignIn(email, 'Wrong1password')).text).__type).toBe('NotAuthorizedException');
    const cognito = await cognitoSignIn(email, TEST_PASSWORD);
    expect(cognito.status).toBe(400);
    expect(JSON.parse(cognito.text)).toEqual({ __type: 'NotAuthorizedException', message: 'Password attempts exceeded' });
    expect((await signIn(email, TEST_PASSWORD)).status).toBe(429);
    await waitOut(email);
    expect(JSON.parse((await cognitoSignIn(email, TEST_PASSWORD)).text).AuthenticationResult).toBeDefined();
  });
});

test('when a failure streak has been untouched for a day, then pruning forgets it and recent ones stay', async () => {
  const old = `old-${Date.now()}@example.test`;
  const recent = `recent-${Date.now()}@example.test`;
  for (let i = 0; i < 6; i++) {
    await recordSignInFailure(t.ctx.db, old);
    await recordSignInFailure(t.ctx.db, recent);
  }
  await testDb().raw(`update sign_in_throttle set updated_at = now() - interval '25 hours', blocked_until = now() + interval '1 hour'
    where account_key = encode(sha256(convert_to(?, 'UTF8')), 'hex')`, [old]);
  expect(await throttledFor(t.ctx.db, old)).toBeGreaterThan(0);
  expect(await pruneSignInThrottle(t.ctx.db)).toBeGreaterThanOrEqual(1);
  expect(await throttledFor(t.ctx.db, old)).toBe(0);
  expect(await throttledFor(t.ctx.db, recent)).toBeGreaterThan(0);
});
