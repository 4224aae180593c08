import jwt from 'jsonwebtoken';
import request from 'supertest';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { followProviderToCallback, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider';
import { forgetDiscoveredClients } from '../../src/integrations/oauth/providers';
import { sanitizeRedirect } from '../../src/integrations/oauth/redirect';

const SITE = 'http://site.test';
const CALLBACK = 'http://api.test/api/v1/idp/oauth/callback';

let opA: TestOidcProvider;
let opB: TestOidcProvider;
let t: TestApp;

beforeAll(async () => {
  opA = await startOidcProvider({ redirectUri: CALLBACK, clientId: 'client-a' });
  // provider_b keeps scope claims out of the ID token: the email comes from its userinfo endpoint.
  opB = await startOidcProvider({ redirectUri: CALLBACK, clientId: 'client-b', claimsOnlyFromUserinfo: true });
  t = createTestApp({
    env: {
      OAUTH_PROVIDER_A_ISSUER: opA.issuer,
      OAUTH_PROVIDER_A_CLIENT_ID: opA.clientId,
      OAUTH_PROVIDER_A_CLIENT_SECRET: opA.clientSecret,
      OAUTH_PROVIDER_B_ISSUER: opB.issuer,
      OAUTH_PROVIDER_B_CLIENT_ID: opB.clientId,
      OAUTH_PROVIDER_B_CLIENT_SECRET: opB.clientSecret,
    },
  });
});

afterAll(async () => {
  forgetDiscoveredClients();
  await opA?.close();
  await opB?.close();
  await closeDb();
});

let seq = 0;
const unique = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

async function accountsWithEmail(email: string): Promise<number> {
  const row = await testDb()('users').whereRaw('lower(email) = lower(?)', [email]).count('* as n').first();
  return Number(row?.n);
}

function setCookies(res: request.Response): string[] {
  const raw = res.headers['set-cookie'] as unknown as string[] | string | undefined;
  return Array.isArray(raw) ? raw : raw ? [raw] : [];
}
function cookieLine(res: request.Response, name: string): string | undefined {
  return setCookies(res).find((c) => c.startsWith(`${name}=`));
}
function cookieValue(res: request.Response, name: string): string | undefined {
  return cookieLine(res, name)?.split(';')[0].slice(name.length + 1);
}
function flowCookieCleared(res: request.Response): boolean {
  const line = cookieLine(res, 'oauth_flow');
  return Boolean(line && /^oauth_flow=;/.test(line) && /Expires=Thu, 01 Jan 1970/i.test(line));
}

/** GET /idp/oauth/:provider; returns the provider URL and the flow cookie header. */
async function start(provider = 'provider_a', redirect?: string) {
  const res = await request(t.app).get(`/api/v1/idp/oauth/${provider}`).query(redirect === undefined ? {} : { redirect });
  expect(res.status).toBe(302);
  const flow = cookieValue(res, 'oauth_flow');
  expect(flow).toBeTruthy();
  return { res, location: res.headers.location as string, cookie: `oauth_flow=${flow}` };
}

/** Starts a flow and completes it at the provider as `sub`; returns the provider's callback parameters. */
async function atProvider(op: TestOidcProvider, sub: string, provider = 'provider_a', redirect?: string) {
  const s = await start(provider, redirect);
  op.nextLogin = sub;
  const back = await followProviderToCallback(s.location, CALLBACK);
  return { ...s, params: Object.fromEntries(back.searchParams) as Record<string, string> };
}

function callback(params: Record<string, string>, cookie?: string) {
  const r = request(t.app).get('/api/v1/idp/oauth/callback').query(params);
  return cookie ? r.set('Cookie', cookie) : r;
}

function expectFailure(res: request.Response, reason: string) {
  expect(res.status).toBe(302);
  expect(res.headers.location).toBe(`${SITE}/auth?error=${reason}`);
  expect(cookieLine(res, 'access_token')).toBeUndefined();
  expect(cookieLine(res, 'refresh_token')).toBeUndefined();
}

/** The account the session cookies belong to (the ID token's subject). */
function sessionSubject(res: request.Response): unknown {
  const token = cookieValue(res, 'id_token');
  return token ? (jwt.decode(decodeURIComponent(token)) as { sub?: string } | null)?.sub : undefined;
}

function expectSession(res: request.Response) {
  for (const name of ['access_token', 'id_token', 'refresh_token']) {
    const line = cookieLine(res, name);
    expect(line).toBeDefined();
    expect(line).toMatch(/HttpOnly/i);
    expect(line).toMatch(/SameSite=Lax/i);
  }
}

describe('GET /idp/oauth/:provider', () => {
  test('when the provider is configured then 302 to its authorization endpoint with PKCE S256, nonce, state and the callback', async () => {
    const { res, location } = await start('provider_a', '/campaigns/1');
    const url = new URL(location);
    expect(`${url.origin}`).toBe(opA.issuer);
    expect(url.searchParams.get('client_id')).toBe('client-a');
    expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    const line = cookieLine(res, 'oauth_flow')!;
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    expect(line).toMatch(/Max-Age=600/);
    expect(line).toMatch(/Path=\//);
    expect(line).not.toMatch(/Secure/); // NODE_ENV=test; production adds Secure
    // Nothing of the flow travels in the cookie: it is an opaque id.
    expect(line).not.toContain(url.searchParams.get('state')!);
  });

  test('when the provider is not one of the two then 400', async () => {
    const res = await request(t.app).get('/api/v1/idp/oauth/provider_c');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Validation failed');
  });

  test('when the provider has no configuration then 503', async () => {
    const bare = createTestApp();
    const res = await request(bare.app).get('/api/v1/idp/oauth/provider_b');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'Provider not configured', provider: 'provider_b' });
    expect(cookieLine(res, 'oauth_flow')).toBeUndefined();
  });

  test('when redirect is longer than 2048 characters then 400', async () => {
    const res = await request(t.app).get('/api/v1/idp/oauth/provider_a').query({ redirect: `/${'a'.repeat(2048)}` });
    expect(res.status).toBe(400);
  });

  test('when a production app starts a flow then the flow cookie is Secure', async () => {
    const prod = createTestApp({
      env: {
        NODE_ENV: 'production',
        OAUTH_PROVIDER_A_ISSUER: opA.issuer,
        OAUTH_PROVIDER_A_CLIENT_ID: opA.clientId,
        OAUTH_PROVIDER_A_CLIENT_SECRET: opA.clientSecret,
      },
    });
    const res = await request(prod.app).get('/api/v1/idp/oauth/provider_a');
    expect(res.status).toBe(302);
    expect(cookieLine(res, 'oauth_flow')).toMatch(/Secure/);
  });
});

describe('GET /idp/oauth/callback', () => {
  test('when a new person signs in then an account without password is created, session cookies set and the site path reached', async () => {
    const sub = unique('new');
    const email = `${sub}@Example.test`;
    opA.accounts.set(sub, { sub, email, email_verified: true, name: 'Ada Lovelace' });
    const flow = await atProvider(opA, sub, 'provider_a', `${SITE}/campaigns/42?tab=updates#top`);
    expect(flow.params.code).toBeTruthy();

    const res = await callback(flow.params, flow.cookie);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${SITE}/campaigns/42?tab=updates`);
    expectSession(res);
    expect(flowCookieCleared(res)).toBe(true);

    const db = testDb();
    const user = await db('users').whereRaw('lower(email) = lower(?)', [email]).first();
    expect(user).toMatchObject({ name: 'Ada Lovelace', email_verified: true });
    expect(sessionSubject(res)).toBe(user.id);
    const ids = await db('user_identities').where({ user_id: user.id });
    expect(ids).toEqual([expect.objectContaining({ provider: 'provider_a', subject: sub })]);

    // The same identity again: same account, no new rows; the used flow cannot be replayed.
    const replay = await callback(flow.params, flow.cookie);
    expectFailure(replay, 'state_mismatch');
    const again = await atProvider(opA, sub);
    const res2 = await callback(again.params, again.cookie);
    expect(res2.headers.location).toBe(`${SITE}/`);
    expectSession(res2);
    expect(sessionSubject(res2)).toBe(user.id);
    expect(await accountsWithEmail(email)).toBe(1);
  });

  test('when the provider does not assert a verified email and gives no name then the new account is unverified and nameless', async () => {
    const sub = unique('unverified-new');
    const email = `${sub}@example.test`;
    // provider_b: email and email_verified come from userinfo.
    opB.accounts.set(sub, { sub, email, email_verified: false });
    const flow = await atProvider(opB, sub, 'provider_b', '/start');
    const res = await callback(flow.params, flow.cookie);
    expect(res.headers.location).toBe(`${SITE}/start`);
    expectSession(res);
    const user = await testDb()('users').where({ email }).first();
    expect(user).toMatchObject({ email_verified: false, name: null });
    // The address still has to be proven: the verification mail is queued.
    const mail = await testDb()('mail_outbox').where({ to: email }).first();
    expect(mail?.template).toBe('email_verification');
  });

  test('when the flow was started in Spanish then the new account keeps es and its verification mail is Spanish', async () => {
    const sub = unique('unverified-es');
    const email = `${sub}@example.test`;
    opB.accounts.set(sub, { sub, email, email_verified: false });
    const started = await request(t.app).get('/api/v1/idp/oauth/provider_b').set('Accept-Language', 'es-ES,es;q=0.9');
    expect(started.status).toBe(302);
    opB.nextLogin = sub;
    const back = await followProviderToCallback(started.headers.location as string, CALLBACK);
    const res = await callback(Object.fromEntries(back.searchParams), `oauth_flow=${cookieValue(started, 'oauth_flow')}`);
    expectSession(res);
    expect((await testDb()('users').where({ email }).first()).locale).toBe('es');
    const mail = await testDb()('mail_outbox').where({ to: email }).first();
    expect(mail).toMatchObject({ template: 'email_verification', locale: 'es', subject: 'Verifica tu dirección de correo electrónico' });
  });

  test('when a verified account has the same address then the identity is linked to it', async () => {
    const existing = await createUser(testDb(), { email: `${unique('linked')}@example.test`, email_verified: true });
    const sub = unique('link');
    opA.accounts.set(sub, { sub, email: existing.email.toUpperCase(), email_verified: true, name: 'Other Name' });
    const flow = await atProvider(opA, sub);
    const res = await callback(flow.params, flow.cookie);
    expect(res.headers.location).toBe(`${SITE}/`);
    expectSession(res);
    const link = await testDb()('user_identities').where({ provider: 'provider_a', subject: sub }).first();
    expect(link.user_id).toBe(existing.id);
    // The session is the existing account's.
    expect(sessionSubject(res)).toBe(existing.id);
    expect(await accountsWithEmail(existing.email)).toBe(1);
  });

  test('when an unverified account has the same address then unverified_account_exists and nothing is linked', async () => {
    const existing = await createUser(testDb(), { email: `${unique('pending')}@example.test`, email_verified: false });
    const sub = unique('takeover');
    opA.accounts.set(sub, { sub, email: existing.email, email_verified: true, name: 'Someone' });
    const flow = await atProvider(opA, sub);
    const res = await callback(flow.params, flow.cookie);
    expectFailure(res, 'unverified_account_exists');
    expect(flowCookieCleared(res)).toBe(true);
    expect(await testDb()('user_identities').where({ subject: sub }).first()).toBeUndefined();
  });

  test('when the provider does not verify an address that already has an account then it is not linked', async () => {
    const existing = await createUser(testDb(), { email: `${unique('victim')}@example.test`, email_verified: true });
    const sub = unique('claimer');
    opA.accounts.set(sub, { sub, email: existing.email, email_verified: false });
    const flow = await atProvider(opA, sub);
    expectFailure(await callback(flow.params, flow.cookie), 'unverified_account_exists');
    expect(await testDb()('user_identities').where({ user_id: existing.id }).first()).toBeUndefined();
  });

  test('when the linked account is suspended then oauth_error and no session', async () => {
    const sub = unique('suspended');
    const user = await createUser(testDb(), { email: `${sub}@example.test`, email_verified: true, status: 'suspended' });
    await testDb()('user_identities').insert({ provider: 'provider_a', subject: sub, user_id: user.id, email: user.email });
    opA.accounts.set(sub, { sub, email: user.email, email_verified: true });
    const flow = await atProvider(opA, sub);
    const res = await callback(flow.params, flow.cookie);
    expectFailure(res, 'oauth_error');
    expect(flowCookieCleared(res)).toBe(true);
  });

  test('when the flow cookie is missing then state_mismatch', async () => {
    const sub = unique('nocookie');
    opA.accounts.set(sub, { sub, email: `${sub}@example.test`, email_verified: true });
    const flow = await atProvider(opA, sub);
    const res = await callback(flow.params);
    expectFailure(res, 'state_mismatch');
  });

  test('when the state was tampered with then state_mismatch', async () => {
    const sub = unique('tamper');
    opA.accounts.set(sub, { sub, email: `${sub}@example.test`, email_verified: true });
    const flow = await atProvider(opA, sub);
    const res = await callback({ ...flow.params, state: `${flow.params.state}x` }, flow.cookie);
    expectFailure(res, 'state_mismatch');
    expect(flowCookieCleared(res)).toBe(true);
  });

  test('when a newer flow was started in the browser then the older callback is a state_mismatch', async () => {
    const sub = unique('twice');
    opA.accounts.set(sub, { sub, email: `${sub}@example.test`, email_verified: true });
    const first = await atProvider(opA, sub);
    const second = await start('provider_a');
    const res = await callback(first.params, second.cookie);
    expectFailure(res, 'state_mismatch');
  });

  test('when the flow is older than 10 minutes then state_mismatch', async () => {
    const sub = unique('late');
    opA.accounts.set(sub, { sub, email: `${sub}@example.test`, email_verified: true });
    const flow = await atProvider(opA, sub);
    const realNow = Date.now;
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 11 * 60_000);
    try {
      expectFailure(await callback(flow.params, flow.cookie), 'state_mismatch');
    } finally {
      spy.mockRestore();
    }
  });

  test('when the callback has a valid state but no code then missing_code', async () => {
    const s = await start('provider_a');
    const state = new URL(s.location).searchParams.get('state')!;
    const res = await callback({ state }, s.cookie);
    expectFailure(res, 'missing_code');
    expect(flowCookieCleared(res)).toBe(true);
  });

  test('when the provider answers with its own error then that error is passed through', async () => {
    const s = await start('provider_a');
    opA.nextError = 'access_denied';
    const back = await followProviderToCallback(s.location, CALLBACK);
    expect(back.searchParams.get('error')).toBe('access_denied');
    const res = await callback(Object.fromEntries(back.searchParams), s.cookie);
    expectFailure(res, 'access_denied');
    expect(flowCookieCleared(res)).toBe(true);
  });

  test('when the error parameter is not an OAuth error code then oauth_error', async () => {
    const res = await callback({ error: '<script>alert(1)</script>' });
    expectFailure(res, 'oauth_error');
  });

  test('when the callback query is malformed (repeated parameters) then it still redirects to the site, never JSON', async () => {
    const res = await request(t.app).get('/api/v1/idp/oauth/callback?code=a&code=b&state=s&state=t');
    expectFailure(res, 'state_mismatch');
  });

  test('when the code is refused at the token endpoint then token_exchange_failed', async () => {
    const s = await start('provider_a');
    const state = new URL(s.location).searchParams.get('state')!;
    // iss as a real provider sends it (RFC 9207); without it the response is refused before the exchange.
    const res = await callback({ code: 'not-a-real-code', state, iss: opA.issuer }, s.cookie);
    expectFailure(res, 'token_exchange_failed');
  });

  test('when the provider gives no email then invalid_token', async () => {
    const sub = unique('noemail');
    opA.accounts.set(sub, { sub, name: 'No Mail' });
    const flow = await atProvider(opA, sub);
    expectFailure(await callback(flow.params, flow.cookie), 'invalid_token');
  });

  test('when a code is replayed through another browser flow then it cannot be redeemed twice', async () => {
    const sub = unique('replay');
    opA.accounts.set(sub, { sub, email: `${sub}@example.test`, email_verified: true });
    const flow = await atProvider(opA, sub);
    // Another browser starts its own flow and presents the stolen code with its own state:
    const other = await start('provider_a');
    const otherState = new URL(other.location).searchParams.get('state')!;
    const res = await callback({ ...flow.params, state: otherState }, other.cookie);
    // PKCE: the other flow's verifier does not match the challenge the code was issued for.
    expectFailure(res, 'token_exchange_failed');
  });
});

describe('redirect sanitiser', () => {
  const cases: Array<[string, string]> = [
    ['/', '/'],
    ['/campaigns/1?x=2', '/campaigns/1?x=2'],
    ['/a#frag', '/a'],
    [`${SITE}/dashboard?tab=1`, '/dashboard?tab=1'],
    [`${SITE}`, '/'],
    ['HTTP://SITE.TEST/x', '/x'],
    ['//evil.example/x', '/'],
    ['/\\evil.example', '/'],
    ['/\t/evil.example', '/'],
    ['https://evil.example/x', '/'],
    ['http://site.test.evil.example/x', '/'],
    ['http://user:pw@site.test/x', '/'],
    ['javascript:alert(1)', '/'],
    ['campaigns/1', '/'],
    ['', '/'],
    ['/./..//evil.example', '/evil.example'],
  ];
  test.each(cases)('when redirect is %j then the stored path is %j', (input, expected) => {
    expect(sanitizeRedirect(input, SITE)).toBe(expected);
  });

  test('when SITE_URL has a base path then full URLs are reduced relative to it and others refused', () => {
    expect(sanitizeRedirect('https://ex.test/app/x?y=1', 'https://ex.test/app')).toBe('/x?y=1');
    expect(sanitizeRedirect('https://ex.test/other', 'https://ex.test/app')).toBe('/');
  });
});
