import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import jwt from 'jsonwebtoken';
import jwksRsa from 'jwks-rsa';
import { Issuer } from 'openid-client';
import request from 'supertest';
import { LOCAL_CLIENT_ID } from '../../src/integrations/idp';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { createUser, sessionCookies, TEST_PASSWORD } from '../helpers/auth';

// OIDC discovery must work from the issuer URL alone, so the app's PUBLIC_URL is the address it
// really listens on: the server is bound first, the app built for its port, then attached.
let server: Server;
let origin: string;
let t: TestApp;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = createTestApp({ env: { PUBLIC_URL: origin } });
  server.on('request', t.app);
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await closeDb();
});

describe('GET /local-idp/.well-known/openid-configuration', () => {
  test('when an OIDC client discovers the issuer then it finds the issuer, RS256 and a JWKS that verifies a native-app ID token', async () => {
    const issuer = await Issuer.discover(`${origin}/local-idp`);
    expect(issuer.metadata).toMatchObject({
      issuer: `${origin}/local-idp`,
      jwks_uri: `${origin}/local-idp/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
    });

    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u);
    // As the README's example: no AWS credentials (these operations are unsigned at Cognito too).
    const sdk = new CognitoIdentityProviderClient({ region: 'local', endpoint: `${origin}/local-idp`, maxAttempts: 1 });
    const auth = await sdk.send(
      new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: u.email, PASSWORD: TEST_PASSWORD } }),
    );
    sdk.destroy();
    const idToken = auth.AuthenticationResult!.IdToken!;
    const kid = jwt.decode(idToken, { complete: true })!.header.kid!;
    const key = await jwksRsa({ jwksUri: issuer.metadata.jwks_uri! }).getSigningKey(kid);
    const claims = jwt.verify(idToken, key.getPublicKey(), {
      algorithms: issuer.metadata.id_token_signing_alg_values_supported as jwt.Algorithm[],
      issuer: issuer.metadata.issuer,
      audience: LOCAL_CLIENT_ID,
    });
    expect(claims).toMatchObject({ sub: u.id, token_use: 'id', email: u.email });
    // And the API takes that token as a bearer.
    const me = await request(t.app).get('/api/v1/me/capabilities').set('Authorization', `Bearer ${idToken}`);
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ user_id: u.id, credential: 'id_token' });
  });

  test('when the service uses Cognito (IDP=cognito) then the discovery document is 404 in the API error shape', async () => {
    const cognito = createTestApp({
      env: { IDP: 'cognito', COGNITO_REGION: 'eu-west-1', COGNITO_USER_POOL_ID: 'eu-west-1_abc', COGNITO_CLIENT_ID: 'client' },
    });
    const res = await request(cognito.app).get('/local-idp/.well-known/openid-configuration');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'Not found', message: expect.any(String) });
  });
});
