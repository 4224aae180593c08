import {
  ChangePasswordCommand,
  CognitoIdentityProviderClient,
  ConfirmForgotPasswordCommand,
  ForgotPasswordCommand,
  GetUserCommand,
  GlobalSignOutCommand,
  InitiateAuthCommand,
  ResendConfirmationCodeCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import request from 'supertest';
import { LOCAL_CLIENT_ID } from '../../src/integrations/idp';
import { issueCode } from '../../src/integrations/idp/codes';
import { closeDb, type TestApp } from '../helpers/app';
import { cognitoPerTest } from '../helpers/cognito-client';
import { createUser, sessionCookies, TEST_PASSWORD, type TestUser } from '../helpers/auth';

// The account operations an app built on the AWS SDK needs (password reset, change, resending
// the confirmation, reading the account), against the built-in provider with the real SDK. A
// fresh app (own auth-limiter bucket) and server per test.
const peer = cognitoPerTest();
let t: TestApp;
let client: CognitoIdentityProviderClient;
beforeEach(() => {
  t = peer.app();
  client = peer.client();
});

afterAll(closeDb);

async function errorOf(p: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { name: string; message: string };
  }
  throw new Error('expected the call to fail');
}

const signIn = (email: string, password: string) =>
  client.send(new InitiateAuthCommand({ ClientId: LOCAL_CLIENT_ID, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: password } }));

/** The 6-digit code of the newest password-reset mail to `to` (from the mail outbox). */
async function resetCodeFor(to: string): Promise<string> {
  const mail = await t.ctx.db('mail_outbox').where({ to, template: 'password_reset' }).orderBy('created_at', 'desc').first();
  const m = /\b(\d{6})\b/.exec(String(mail?.text ?? ''));
  if (!m) throw new Error(`no reset code mailed to ${to}`);
  return m[1]!;
}

async function userWithPassword(overrides: Partial<TestUser> = {}): Promise<TestUser> {
  const u = await createUser(t.ctx.db, overrides);
  await sessionCookies(t, u);
  return u;
}

describe('POST /local-idp/ account operations (real AWS SDK)', () => {
  test('when ForgotPassword then ConfirmForgotPassword with the mailed code, then the new password signs in, the old does not, and old sessions end', async () => {
    const u = await userWithPassword();
    const before = await signIn(u.email, TEST_PASSWORD);
    const forgot = await client.send(new ForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email }));
    expect(forgot.CodeDeliveryDetails).toEqual({ Destination: expect.stringMatching(/^u\*\*\*@e\*\*\*$/), DeliveryMedium: 'EMAIL', AttributeName: 'email' });
    const code = await resetCodeFor(u.email);
    await client.send(new ConfirmForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: code, Password: 'brand-new-pass-7' }));
    expect((await signIn(u.email, 'brand-new-pass-7')).AuthenticationResult?.IdToken).toEqual(expect.any(String));
    expect((await errorOf(signIn(u.email, TEST_PASSWORD))).name).toBe('NotAuthorizedException');
    // Signed out everywhere: the session from before the reset is gone.
    const old = await errorOf(client.send(new GetUserCommand({ AccessToken: before.AuthenticationResult!.AccessToken! })));
    expect(old.name).toBe('NotAuthorizedException');
    // The code is single use.
    const reused = await errorOf(client.send(new ConfirmForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: code, Password: 'another-pass-8' })));
    expect(reused.name).toBe('CodeMismatchException');
  });

  test('when ForgotPassword names an unknown address, then the same answer and no mail', async () => {
    const email = `nobody-${Date.now()}@example.test`;
    const forgot = await client.send(new ForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: email }));
    expect(forgot.CodeDeliveryDetails?.DeliveryMedium).toBe('EMAIL');
    expect(await t.ctx.db('mail_outbox').where({ to: email })).toHaveLength(0);
    const confirm = await errorOf(client.send(new ConfirmForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: email, ConfirmationCode: '123456', Password: 'brand-new-pass-7' })));
    expect(confirm.name).toBe('CodeMismatchException');
  });

  test('when ConfirmForgotPassword has a wrong or expired code or a weak password, then CodeMismatch, ExpiredCode or InvalidPassword, with x-amzn-ErrorType', async () => {
    const u = await userWithPassword();
    await client.send(new ForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email }));
    const code = await resetCodeFor(u.email);
    const wrong = code === '000000' ? '000001' : '000000';
    expect((await errorOf(client.send(new ConfirmForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: wrong, Password: 'brand-new-pass-7' })))).name).toBe('CodeMismatchException');
    expect((await errorOf(client.send(new ConfirmForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: code, Password: 'short' })))).name).toBe('InvalidPasswordException');
    const expired = await issueCode(t.ctx.db, u.id, 'password_reset', -60);
    expect((await errorOf(client.send(new ConfirmForgotPasswordCommand({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: expired, Password: 'brand-new-pass-7' })))).name).toBe('ExpiredCodeException');

    const raw = await request(t.app)
      .post('/local-idp/')
      .set('X-Amz-Target', 'AWSCognitoIdentityProviderService.ConfirmForgotPassword')
      .set('Content-Type', 'application/x-amz-json-1.1')
      .send(JSON.stringify({ ClientId: LOCAL_CLIENT_ID, Username: u.email, ConfirmationCode: wrong, Password: 'brand-new-pass-7' }));
    expect(raw.status).toBe(400);
    expect(raw.headers['x-amzn-errortype']).toBe('CodeMismatchException');
    expect(JSON.parse(raw.text)).toEqual({ __type: 'CodeMismatchException', message: expect.any(String) });
    // A wrong client id is refused as Cognito does.
    expect((await errorOf(client.send(new ForgotPasswordCommand({ ClientId: 'other-client', Username: u.email })))).name).toBe('ResourceNotFoundException');
  });

  test('when GetUser is called with the access token, then the account\'s sub, email, email_verified and name; a bad or signed-out token is NotAuthorized', async () => {
    const u = await userWithPassword({ name: 'Ada Lovelace' });
    const auth = await signIn(u.email, TEST_PASSWORD);
    const accessToken = auth.AuthenticationResult!.AccessToken!;
    const me = await client.send(new GetUserCommand({ AccessToken: accessToken }));
    expect(me.Username).toBe(u.email);
    expect(me.UserAttributes).toEqual(
      expect.arrayContaining([
        { Name: 'sub', Value: u.id },
        { Name: 'email', Value: u.email },
        { Name: 'email_verified', Value: 'true' },
        { Name: 'name', Value: 'Ada Lovelace' },
      ]),
    );
    // The ID token is not an access token.
    expect((await errorOf(client.send(new GetUserCommand({ AccessToken: auth.AuthenticationResult!.IdToken! })))).name).toBe('NotAuthorizedException');
    expect((await errorOf(client.send(new GetUserCommand({ AccessToken: 'not-a-token' })))).name).toBe('NotAuthorizedException');
    await client.send(new GlobalSignOutCommand({ AccessToken: accessToken }));
    expect(await errorOf(client.send(new GetUserCommand({ AccessToken: accessToken })))).toMatchObject({ name: 'NotAuthorizedException', message: 'Access Token has been revoked' });
  });

  test('when ChangePassword has the right previous password, then the new one signs in; a wrong one is NotAuthorized, a weak one InvalidPassword', async () => {
    const u = await userWithPassword();
    const accessToken = (await signIn(u.email, TEST_PASSWORD)).AuthenticationResult!.AccessToken!;
    const wrong = await errorOf(client.send(new ChangePasswordCommand({ AccessToken: accessToken, PreviousPassword: 'not-it-123', ProposedPassword: 'changed-pass-9' })));
    expect(wrong.name).toBe('NotAuthorizedException');
    const weak = await errorOf(client.send(new ChangePasswordCommand({ AccessToken: accessToken, PreviousPassword: TEST_PASSWORD, ProposedPassword: 'weak' })));
    expect(weak.name).toBe('InvalidPasswordException');
    await client.send(new ChangePasswordCommand({ AccessToken: accessToken, PreviousPassword: TEST_PASSWORD, ProposedPassword: 'changed-pass-9' }));
    expect((await signIn(u.email, 'changed-pass-9')).AuthenticationResult?.IdToken).toEqual(expect.any(String));
    expect((await errorOf(signIn(u.email, TEST_PASSWORD))).name).toBe('NotAuthorizedException');
  });

  test('when ResendConfirmationCode names an unverified account, then a new verification mail goes out; a verified or unknown one gets the same answer and no mail', async () => {
    const unverified = await userWithPassword({ email_verified: false });
    const sent = await client.send(new ResendConfirmationCodeCommand({ ClientId: LOCAL_CLIENT_ID, Username: unverified.email }));
    expect(sent.CodeDeliveryDetails).toEqual({ Destination: expect.any(String), DeliveryMedium: 'EMAIL', AttributeName: 'email' });
    expect(await t.ctx.db('mail_outbox').where({ to: unverified.email, template: 'email_verification' })).toHaveLength(1);

    const verified = await userWithPassword();
    const same = await client.send(new ResendConfirmationCodeCommand({ ClientId: LOCAL_CLIENT_ID, Username: verified.email }));
    expect(same.CodeDeliveryDetails?.DeliveryMedium).toBe('EMAIL');
    expect(await t.ctx.db('mail_outbox').where({ to: verified.email })).toHaveLength(0);
    const missing = await errorOf(client.send(new ResendConfirmationCodeCommand({ ClientId: LOCAL_CLIENT_ID, Username: '' })));
    expect(missing.name).toBe('InvalidParameterException');
  });
});
