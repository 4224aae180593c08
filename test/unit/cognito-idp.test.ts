import { createHmac } from 'node:crypto';
import {
  AdminDeleteUserCommand,
  AdminResetUserPasswordCommand,
  AdminSetUserPasswordCommand,
  AdminUserGlobalSignOutCommand,
  ChangePasswordCommand,
  CognitoIdentityProviderClient,
  ConfirmSignUpCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  SignUpCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { mockClient } from 'aws-sdk-client-mock';
import { CognitoIdentityProvider, IdpError } from '../../src/integrations/idp';
import { createIdentityProvider } from '../../src/integrations/idp';
import { parseConfig } from '../../src/config';

const settings = { region: 'eu-west-1', userPoolId: 'eu-west-1_Pool', clientId: 'client-1', clientSecret: 'shh' };
const cognito = mockClient(CognitoIdentityProviderClient);
const idp = new CognitoIdentityProvider(settings, new CognitoIdentityProviderClient({ region: 'eu-west-1' }));

const secretHash = (u: string) => createHmac('sha256', 'shh').update(u + 'client-1').digest('base64');

function awsError(name: string, status = 400) {
  return Object.assign(new Error(name), { name, $fault: 'client', $metadata: { httpStatusCode: status } });
}

async function kindOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(IdpError);
    return (err as IdpError).kind;
  }
  throw new Error('expected a failure');
}

beforeEach(() => cognito.reset());

describe('Cognito identity provider', () => {
  test('when IDP=cognito then the factory builds it with the pool issuer, audience and JWKS', () => {
    const p = createIdentityProvider(
      parseConfig({ IDP: 'cognito', COGNITO_REGION: 'eu-west-1', COGNITO_USER_POOL_ID: 'eu-west-1_Pool', COGNITO_CLIENT_ID: 'client-1' }),
      {} as never,
    );
    expect(p.kind).toBe('cognito');
    expect(p.verification.issuer).toBe('https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool');
    expect(p.verification.jwksUri).toBe('https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool/.well-known/jwks.json');
    expect(p.verification.audience).toBe('client-1');
  });

  test('when IDP=cognito lacks pool settings then the factory refuses', () => {
    expect(() => createIdentityProvider(parseConfig({ IDP: 'cognito' }), {} as never)).toThrow(/COGNITO_REGION/);
  });

  test('when signing up then SignUp carries the secret hash and the answer maps to sub and userConfirmed', async () => {
    cognito.on(SignUpCommand).resolves({ UserSub: 'sub-1', UserConfirmed: false });
    const out = await idp.signUp({ email: 'a@b.test', password: 'pw-12345', userId: 'u1' });
    expect(out).toEqual({ sub: 'sub-1', userConfirmed: false });
    const input = cognito.commandCalls(SignUpCommand)[0]!.args[0].input;
    expect(input).toMatchObject({ ClientId: 'client-1', Username: 'a@b.test', SecretHash: secretHash('a@b.test') });
  });

  test.each([
    ['UsernameExistsException', 'user_exists'],
    ['InvalidPasswordException', 'invalid_password'],
  ])('when SignUp fails with %s then the error kind is %s', async (name, kind) => {
    cognito.on(SignUpCommand).rejects(awsError(name));
    expect(await kindOf(idp.signUp({ email: 'a@b.test', password: 'x', userId: 'u' }))).toBe(kind);
  });

  test.each([
    ['CodeMismatchException', 'code_mismatch'],
    ['ExpiredCodeException', 'code_expired'],
  ])('when ConfirmSignUp fails with %s then %s', async (name, kind) => {
    cognito.on(ConfirmSignUpCommand).rejects(awsError(name));
    expect(await kindOf(idp.confirmSignUp('a@b.test', '123456'))).toBe(kind);
  });

  test('when USER_PASSWORD_AUTH succeeds then tokens; a NEW_PASSWORD_REQUIRED answer becomes a challenge', async () => {
    cognito
      .on(InitiateAuthCommand)
      .resolvesOnce({ AuthenticationResult: { IdToken: 'id', AccessToken: 'ac', RefreshToken: 'rf', ExpiresIn: 3600 } })
      .resolvesOnce({ ChallengeName: 'NEW_PASSWORD_REQUIRED', Session: 'sess' });
    expect(await idp.initiateAuth('a@b.test', 'pw')).toEqual({
      kind: 'tokens',
      tokens: { idToken: 'id', accessToken: 'ac', refreshToken: 'rf', expiresIn: 3600 },
    });
    expect(await idp.initiateAuth('a@b.test', 'pw')).toEqual({ kind: 'challenge', challengeName: 'NEW_PASSWORD_REQUIRED', session: 'sess' });
    const input = cognito.commandCalls(InitiateAuthCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: 'a@b.test', PASSWORD: 'pw', SECRET_HASH: secretHash('a@b.test') },
    });
  });

  test.each([
    ['NotAuthorizedException', 'not_authorized'],
    ['UserNotFoundException', 'not_authorized'],
    ['UserNotConfirmedException', 'not_confirmed'],
    ['PasswordResetRequiredException', 'password_reset_required'],
  ])('when InitiateAuth fails with %s then %s', async (name, kind) => {
    cognito.on(InitiateAuthCommand).rejects(awsError(name));
    expect(await kindOf(idp.initiateAuth('a@b.test', 'pw'))).toBe(kind);
  });

  test('when the challenge is answered then RespondToAuthChallenge carries the new password and session', async () => {
    cognito.on(RespondToAuthChallengeCommand).resolves({ AuthenticationResult: { IdToken: 'id', AccessToken: 'ac', ExpiresIn: 3600 } });
    const r = await idp.respondToNewPasswordChallenge('a@b.test', 'sess', 'new-pw-1');
    expect(r.kind).toBe('tokens');
    expect(cognito.commandCalls(RespondToAuthChallengeCommand)[0]!.args[0].input).toMatchObject({
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      Session: 'sess',
      ChallengeResponses: { USERNAME: 'a@b.test', NEW_PASSWORD: 'new-pw-1' },
    });
  });

  test('when refreshing then REFRESH_TOKEN_AUTH with the username secret hash; no new refresh token is passed on', async () => {
    cognito.on(InitiateAuthCommand).resolves({ AuthenticationResult: { IdToken: 'id2', AccessToken: 'ac2', ExpiresIn: 3600 } });
    const t = await idp.refresh('rt', 'sub-1');
    expect(t).toEqual({ idToken: 'id2', accessToken: 'ac2', refreshToken: undefined, expiresIn: 3600 });
    expect(cognito.commandCalls(InitiateAuthCommand)[0]!.args[0].input).toMatchObject({
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      AuthParameters: { REFRESH_TOKEN: 'rt', SECRET_HASH: secretHash('sub-1') },
    });
  });

  test('when the refresh token is rejected then not_authorized (401); when Cognito is unreachable then unreachable (503)', async () => {
    cognito.on(InitiateAuthCommand).rejects(awsError('NotAuthorizedException'));
    expect(await kindOf(idp.refresh('rt'))).toBe('not_authorized');
    cognito.reset();
    cognito.on(InitiateAuthCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(await kindOf(idp.refresh('rt'))).toBe('unreachable');
    cognito.reset();
    cognito.on(InitiateAuthCommand).rejects(Object.assign(awsError('InternalErrorException', 500), { $fault: 'server' }));
    expect(await kindOf(idp.refresh('rt'))).toBe('unreachable');
  });

  test('when signing out globally, changing, setting or forcing a password then the matching admin/user commands are sent', async () => {
    cognito.on(AdminUserGlobalSignOutCommand).resolves({});
    cognito.on(ChangePasswordCommand).resolves({});
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    cognito.on(AdminResetUserPasswordCommand).resolves({});
    await idp.globalSignOut('sub-1');
    await idp.changePassword({ sub: 'sub-1', email: 'a@b.test', accessToken: 'ac', currentPassword: 'old', newPassword: 'new' });
    await idp.setPassword('a@b.test', 'new-pw-1');
    await idp.forcePasswordReset('a@b.test');
    expect(cognito.commandCalls(AdminUserGlobalSignOutCommand)[0]!.args[0].input).toEqual({ UserPoolId: 'eu-west-1_Pool', Username: 'sub-1' });
    expect(cognito.commandCalls(ChangePasswordCommand)[0]!.args[0].input).toEqual({ AccessToken: 'ac', PreviousPassword: 'old', ProposedPassword: 'new' });
    expect(cognito.commandCalls(AdminSetUserPasswordCommand)[0]!.args[0].input).toMatchObject({ Username: 'a@b.test', Permanent: true });
    expect(cognito.commandCalls(AdminResetUserPasswordCommand)).toHaveLength(1);
  });

  test('when a session is requested for an externally authenticated user then unsupported', async () => {
    expect(await kindOf(idp.issueTokensForUser())).toBe('unsupported');
  });

  test('when an account is erased then AdminDeleteUser removes it from the pool; an account already gone is not an error', async () => {
    cognito.on(AdminDeleteUserCommand).resolvesOnce({}).rejectsOnce(awsError('UserNotFoundException')).rejectsOnce(awsError('InternalErrorException', 500));
    await idp.deleteUser('sub-9');
    expect(cognito.commandCalls(AdminDeleteUserCommand)[0]!.args[0].input).toEqual({ UserPoolId: 'eu-west-1_Pool', Username: 'sub-9' });
    await expect(idp.deleteUser('sub-9')).resolves.toBeUndefined();
    expect(await kindOf(idp.deleteUser('sub-9'))).toBe('unreachable');
  });
});
