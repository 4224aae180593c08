import {
  CognitoIdentityProviderClient,
  ConfirmSignUpCommand,
  GlobalSignOutCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  SignUpCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import jwt from 'jsonwebtoken';
import { createPublicKey } from 'node:crypto';
import request from 'supertest';
import { LOCAL_CLIENT_ID } from '../../src/integrations/idp';
import { issueCode } from '../../src/integrations/idp/codes';
import { closeDb, type TestApp } from '../helpers/app';
import { cognitoPerTest } from '../helpers/cognito-client';
import { createUser, sessionCookies, TEST_PASSWORD } from '../helpers/auth';

// Native apps talk to the built-in provider with the real Cognito SDK. A fresh app (own
// auth-limiter bucket) and server per test: each test makes several password calls.
const peer = cognitoPerTest();
let t: TestApp;
let client: CognitoIdentityProviderClient;
beforeEach(() => {
  t = peer.app();
  client = peer.client();
});

afterAll(closeDb);

const PASSWORD = 'native-app-8';
let n = 0;
const newEmail = () => `native-${Date.now()}-${++n}@example.test`;

async function errorOf(p: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { name: string; message: string };
  }
  throw new Error('expected the call to fail');
}

describe('POST /local-idp/ (Cognito JSON protocol)', () => {
  test('when SignUp then InitiateAuth USER_PASSWORD_AUTH then the ID token works as a bearer on the API', async () => {
    const email = newEmail();
    const up = await client.send(new SignUpCommand({ ClientId: LOCAL_CLIENT_ID, Username: email, Password: PASSWORD, UserAttributes: [{ Name: 'email', Value: email }] }));
    expect(up.UserConfirmed).toBe(true);
    expect(up.UserSub).toEqual(expect.any(String));
    const auth = await client.send(
      new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD } }),
    );
    expect(auth.AuthenticationResult).toMatchObject({ ExpiresIn: 3600, TokenType: 'Bearer' });
    const { IdToken, AccessToken, RefreshToken } = auth.AuthenticationResult!;
    expect(IdToken && AccessToken && RefreshToken).toBeTruthy();
    const probe = await request(t.app).get('/api/v1/idp/me').set('Cookie', `id_token=${IdToken}`);
    expect(probe.body.user.email).toBe(email);
    // The API refuses the access token as a bearer, accepts nothing but the ID token.
    const capabilities = await request(t.app).post('/api/v1/idp/change-password').set('Authorization', `Bearer ${AccessToken}`).send({});
    expect(capabilities.status).toBe(401);
  });

  test('when the ID token is checked against GET /local-idp/.well-known/jwks.json then it verifies with RS256', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    const auth = await client.send(
      new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: u.email, PASSWORD: TEST_PASSWORD } }),
    );
    const jwks = await request(t.app).get('/local-idp/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    const idToken = auth.AuthenticationResult!.IdToken!;
    const kid = jwt.decode(idToken, { complete: true })!.header.kid;
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === kid);
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwk.d).toBeUndefined();
    const claims = jwt.verify(idToken, createPublicKey({ key: jwk, format: 'jwk' }), { algorithms: ['RS256'], issuer: 'http://api.test/local-idp', audience: LOCAL_CLIENT_ID });
    expect(claims).toMatchObject({ sub: u.id, token_use: 'id' });
  });

  test('when REFRESH_TOKEN_AUTH then new ID and access tokens without a new refresh token', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    const first = await client.send(
      new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: u.email, PASSWORD: TEST_PASSWORD } }),
    );
    const again = await client.send(
      new InitiateAuthCommand({
        ClientId: LOCAL_CLIENT_ID,
        AuthFlow: 'REFRESH_TOKEN_AUTH',
        AuthParameters: { REFRESH_TOKEN: first.AuthenticationResult!.RefreshToken! },
      }),
    );
    expect(again.AuthenticationResult!.IdToken).toEqual(expect.any(String));
    expect(again.AuthenticationResult!.RefreshToken).toBeUndefined();
  });

  test('when the password is wrong then NotAuthorizedException', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    const err = await errorOf(
      client.send(new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: u.email, PASSWORD: 'wrong-one-1' } })),
    );
    expect(err.name).toBe('NotAuthorizedException');
  });

  test('when SignUp repeats an address then UsernameExistsException; a weak password then InvalidPasswordException', async () => {
    const u = await createUser(t.ctx.db);
    const exists = await errorOf(client.send(new SignUpCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, Password: PASSWORD })));
    expect(exists.name).toBe('UsernameExistsException');
    const weak = await errorOf(client.send(new SignUpCommand({ ClientId: LOCAL_CLIENT_ID, Username: newEmail(), Password: 'weak' })));
    expect(weak.name).toBe('InvalidPasswordException');
  });

  test('when ConfirmSignUp gets a wrong code then CodeMismatchException, an expired one ExpiredCodeException, the right one succeeds', async () => {
    const u = await createUser(t.ctx.db);
    const code = await issueCode(t.ctx.db, u.id, 'confirm_signup', 3600);
    const wrong = await errorOf(client.send(new ConfirmSignUpCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: '999999x' })));
    expect(wrong.name).toBe('CodeMismatchException');
    await client.send(new ConfirmSignUpCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: code }));
    const code2 = await issueCode(t.ctx.db, u.id, 'confirm_signup', 3600);
    await t.ctx.db('idp_codes').where({ user_id: u.id }).whereNull('used_at').update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await errorOf(client.send(new ConfirmSignUpCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: code2 })));
    expect(expired.name).toBe('ExpiredCodeException');
  });

  test('when GlobalSignOut with the access token then the refresh token and the ID token stop working', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    const auth = await client.send(
      new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: u.email, PASSWORD: TEST_PASSWORD } }),
    );
    await client.send(new GlobalSignOutCommand({ AccessToken: auth.AuthenticationResult!.AccessToken! }));
    const refresh = await errorOf(
      client.send(new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: auth.AuthenticationResult!.RefreshToken! } })),
    );
    expect(refresh.name).toBe('NotAuthorizedException');
    const me = await request(t.app).get('/api/v1/idp/me').set('Cookie', `id_token=${auth.AuthenticationResult!.IdToken!}`);
    expect(me.status).toBe(401);
    const bad = await errorOf(client.send(new GlobalSignOutCommand({ AccessToken: auth.AuthenticationResult!.IdToken! })));
    expect(bad.name).toBe('NotAuthorizedException');
  });

  test('when an operator forced a reset then NEW_PASSWORD_REQUIRED, answered with RespondToAuthChallenge', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    await t.ctx.idp.forcePasswordReset(u.email);
    const first = await client.send(
      new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: u.email, PASSWORD: TEST_PASSWORD } }),
    );
    expect(first.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
    expect(first.AuthenticationResult).toBeUndefined();
    const done = await client.send(
      new RespondToAuthChallengeCommand({
        ClientId: LOCAL_CLIENT_ID,
        ChallengeName: 'NEW_PASSWORD_REQUIRED',
        Session: first.Session,
        ChallengeResponses: { USERNAME: u.email, NEW_PASSWORD: 'after-reset-4' },
      }),
    );
    expect(done.AuthenticationResult!.IdToken).toEqual(expect.any(String));
  });

  test('when the client id is unknown then ResourceNotFoundException', async () => {
    const err = await errorOf(
      client.send(new InitiateAuthCommand({ ClientId: 'other', AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: 'a@b.test', PASSWORD: 'x' } })),
    );
    expect(err.name).toBe('ResourceNotFoundException');
  });

  test('when more than 10 password attempts come from one IP in a minute then the SDK sees TooManyRequestsException', async () => {
    const attempt = () =>
      client.send(new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: 'a@b.test', PASSWORD: 'x' } }));
    for (let i = 0; i < 10; i++) expect((await errorOf(attempt())).name).toBe('NotAuthorizedException');
    const limited = (await errorOf(attempt())) as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    expect(limited.name).toBe('TooManyRequestsException');
    expect(limited.message).toMatch(/Too many authentication attempts/);
    expect(limited.$metadata?.httpStatusCode).toBe(400);
    // On the wire: Cognito's fault body and header, and the limiter's Retry-After.
    const raw = await request(t.app)
      .post('/local-idp/')
      .set('X-Amz-Target', 'AWSCognitoIdentityProviderService.InitiateAuth')
      .set('Content-Type', 'application/x-amz-json-1.1')
      .send(JSON.stringify({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: 'a@b.test', PASSWORD: 'x' } }));
    expect(raw.status).toBe(400);
    expect(raw.headers['x-amzn-errortype']).toBe('TooManyRequestsException');
    expect(raw.headers['retry-after']).toEqual(expect.any(String));
    expect(JSON.parse(raw.text)).toEqual({ __type: 'TooManyRequestsException', message: expect.any(String) });
    // The API's own sign-in shares the bucket and keeps the API's 429 shape.
    const api = await request(t.app).post('/api/v1/idp/signin').send({ email: 'a@b.test', password: 'x' });
    expect(api.status).toBe(429);
    expect(api.body.error).toMatch(/Too many authentication attempts/);
  });

  test('when GlobalSignOut is sent again with the already revoked access token then NotAuthorizedException', async () => {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    const auth = await client.send(
      new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: u.email, PASSWORD: TEST_PASSWORD } }),
    );
    const accessToken = auth.AuthenticationResult!.AccessToken!;
    await client.send(new GlobalSignOutCommand({ AccessToken: accessToken }));
    const again = await errorOf(client.send(new GlobalSignOutCommand({ AccessToken: accessToken })));
    expect(again).toMatchObject({ name: 'NotAuthorizedException', message: 'Access Token has been revoked' });
  });

  test('when the target is unknown then 400 { __type, message } in application/x-amz-json-1.1', async () => {
    const res = await request(t.app)
      .post('/local-idp/')
      .set('X-Amz-Target', 'AWSCognitoIdentityProviderService.DeleteUserPool')
      .set('Content-Type', 'application/x-amz-json-1.1')
      .send(JSON.stringify({}));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/x-amz-json-1.1/);
    expect(JSON.parse(res.text)).toEqual({ __type: 'UnknownOperationException', message: expect.any(String) });
  });

  test('when any operation fails then the answer carries x-amzn-ErrorType equal to __type', async () => {
    const send = (op: string, body: Record<string, unknown>) =>
      request(t.app)
        .post('/local-idp/')
        .set('X-Amz-Target', `AWSCognitoIdentityProviderService.${op}`)
        .set('Content-Type', 'application/x-amz-json-1.1')
        .send(JSON.stringify(body));
    const cases = await Promise.all([
      send('DeleteUserPool', {}),
      send('InitiateAuth', { ClientId: 'other', AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: 'a@b.test', PASSWORD: 'x' } }),
      send('InitiateAuth', { ClientId: LOCAL_CLIENT_ID, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: 'nope' } }),
      send('GlobalSignOut', { AccessToken: 'not-a-token' }),
      send('SignUp', { ClientId: LOCAL_CLIENT_ID, Username: 'x\u0000y@example.test', Password: PASSWORD }),
      send('ConfirmSignUp', { ClientId: LOCAL_CLIENT_ID }),
      send('ConfirmSignUp', { ClientId: LOCAL_CLIENT_ID, Username: 'a\u0000b@example.test', ConfirmationCode: '123456' }),
    ]);
    for (const res of cases) {
      const body = JSON.parse(res.text) as { __type: string; message: string };
      expect({ status: res.status, type: body.__type, header: res.headers['x-amzn-errortype'], message: typeof body.message }).toEqual({
        status: 400,
        type: expect.stringMatching(/^[A-Za-z]+Exception$/),
        header: body.__type,
        message: 'string',
      });
    }
  });
});
