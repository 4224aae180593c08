import { InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import request from 'supertest';
import { LOCAL_CLIENT_ID } from '../../src/integrations/idp';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser, sessionCookies, TEST_PASSWORD } from '../helpers/auth';
import { cognitoPerTest } from '../helpers/cognito-client';
import { admin } from '../helpers/processes';

// Each CLI call is its own tsx process (seconds each on a loaded machine).
jest.setTimeout(240_000);

const db = testDb();
afterAll(closeDb);

describe('npm run admin -- erasures / erase <email> --now', () => {
  it('when an erasure is scheduled, then `erasures` lists it; `erase --now` carries it out', async () => {
    const t = createTestApp();
    const u = await createUser(db);
    const r = await request(t.app).post('/api/v1/me/erasure').set(await sessionCookies(t, u)).send({});
    expect(r.status).toBe(202);
    const list = await admin('erasures');
    expect([list.code, list.stdout]).toEqual([0, expect.stringContaining(u.id)]);
    const done = await admin('erase', u.email, '--now');
    expect([done.code, done.stdout]).toEqual([0, expect.stringContaining('erased')]);
    expect((await db('users').where({ id: u.id }).first()).email).not.toBe(u.email);
    expect((await admin('erasures')).stdout).not.toContain(u.id);
    expect((await admin('erase', u.email)).code).toBe(2);
  });
});

describe('erased credentials through the AWS SDK', () => {
  const cognito = cognitoPerTest();
  it("when an account is erased, then the provider's own credential is gone and InitiateAuth fails by the old and the pseudonymised address", async () => {
    const t = cognito.app();
    const u = await createUser(db);
    await sessionCookies(t, u); // sets TEST_PASSWORD
    const auth = (email: string) =>
      cognito.client().send(new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: LOCAL_CLIENT_ID, AuthParameters: { USERNAME: email, PASSWORD: TEST_PASSWORD } }));
    // The built-in provider's storage, by user id (the address changes at erasure, the id does not).
    const held = async () => [
      Number((await db('idp_credentials').where({ user_id: u.id }).count({ n: '*' }))[0]!.n),
      Number((await db('idp_sessions').where({ user_id: u.id }).count({ n: '*' }))[0]!.n),
    ];
    await expect(auth(u.email)).resolves.toMatchObject({ AuthenticationResult: expect.anything() });
    expect((await held())[0]).toBe(1);
    expect((await admin('erase', u.email, '--now')).code).toBe(0);
    await t.runJobs();
    expect(await held()).toEqual([0, 0]);
    await expect(auth(u.email)).rejects.toMatchObject({ name: expect.stringMatching(/^(NotAuthorizedException|UserNotFoundException)$/) });
    // The account row keeps a pseudonymised address: with a credential left, the old password would still sign in by it.
    const pseudonym = (await db('users').where({ id: u.id }).first()).email;
    expect(pseudonym).not.toBe(u.email);
    await expect(auth(pseudonym)).rejects.toMatchObject({ name: expect.stringMatching(/^(NotAuthorizedException|UserNotFoundException)$/) });
  });
});
