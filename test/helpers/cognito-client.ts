import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { createTestApp, type TestApp } from './app';

/**
 * A fresh app (own auth-limiter bucket) served on loopback and the real AWS SDK's Cognito client
 * pointed at its `/local-idp/`, per test: native apps talk to the built-in provider this way, and
 * each test makes several password calls.
 */
export function cognitoPerTest(): { app(): TestApp; client(): CognitoIdentityProviderClient } {
  let t: TestApp;
  let server: Server;
  let client: CognitoIdentityProviderClient;
  beforeEach(async () => {
    t = createTestApp();
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as AddressInfo;
    client = new CognitoIdentityProviderClient({
      region: 'local',
      endpoint: `http://127.0.0.1:${port}/local-idp`,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
  });
  afterEach(async () => {
    client.destroy();
    await new Promise((r) => server.close(r));
  });
  return { app: () => t, client: () => client };
}
