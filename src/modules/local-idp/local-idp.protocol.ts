import type { Request } from 'express';
import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import { IdpError, LocalIdentityProvider, LOCAL_CLIENT_ID } from '../../integrations/idp';
import type { TokenSet } from '../../integrations/idp';

// Cognito's JSON protocol for native apps (docs/decisions/0018-local-identity-provider.md): its faults,
// parameter checks and answers, shared by every operation.

export class CognitoFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const KIND_TO_TYPE: Record<string, string> = {
  not_authorized: 'NotAuthorizedException',
  user_disabled: 'NotAuthorizedException',
  user_exists: 'UsernameExistsException',
  invalid_password: 'InvalidPasswordException',
  code_mismatch: 'CodeMismatchException',
  code_expired: 'ExpiredCodeException',
  not_confirmed: 'UserNotConfirmedException',
  password_reset_required: 'PasswordResetRequiredException',
  no_password: 'NotAuthorizedException',
};

/** The Cognito fault for an error, or null when it is not the caller's doing. */
export function toFault(err: unknown): CognitoFault | null {
  if (err instanceof CognitoFault) return err;
  if (err instanceof IdpError) return new CognitoFault(KIND_TO_TYPE[err.kind] ?? 'InternalErrorException', err.message, err.kind in KIND_TO_TYPE ? 400 : 500);
  if (err instanceof ApiError) {
    if (err.status === 409) return new CognitoFault('UsernameExistsException', 'An account with the given email already exists.');
    if (err.error === 'Password does not meet requirements') return new CognitoFault('InvalidPasswordException', err.message);
    // The identity module's password reset and change (ConfirmForgotPassword, ChangePassword).
    if (err.error === 'Invalid verification code') return new CognitoFault('CodeMismatchException', 'Invalid verification code provided, please try again.');
    if (err.error === 'Verification code expired') return new CognitoFault('ExpiredCodeException', 'Invalid code provided, please request a code again.');
    if (err.extra.code === 'INCORRECT_PASSWORD') return new CognitoFault('NotAuthorizedException', 'Incorrect username or password.');
    if (err.extra.code === 'NO_PASSWORD') return new CognitoFault('NotAuthorizedException', err.message);
    if (err.status === 403 && err.extra.feature_key) return new CognitoFault('NotAuthorizedException', 'Sign-up is currently disabled.');
    if (err.status === 403) return new CognitoFault('NotAuthorizedException', err.message);
    if (err.status === 429) return new CognitoFault('TooManyRequestsException', err.message);
    if (err.status < 500) return new CognitoFault('InvalidParameterException', err.message);
    return null;
  }
  const code = (err as { code?: unknown } | null)?.code;
  // Postgres refusing a value (NUL byte, bad encoding, malformed uuid) is the caller's input.
  if (code === '22021' || code === '22P05' || code === '22P02') return new CognitoFault('InvalidParameterException', 'A value has the wrong format');
  return null;
}

export const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v === '') throw new CognitoFault('InvalidParameterException', `Missing required parameter ${name}`);
  return v;
};

export function checkClient(body: Record<string, unknown>) {
  if (str(body.ClientId, 'ClientId') !== LOCAL_CLIENT_ID) {
    throw new CognitoFault('ResourceNotFoundException', 'User pool client does not exist.');
  }
}

export const authResult = (t: TokenSet) => ({
  AuthenticationResult: {
    IdToken: t.idToken,
    AccessToken: t.accessToken,
    ...(t.refreshToken ? { RefreshToken: t.refreshToken } : {}),
    ExpiresIn: t.expiresIn,
    TokenType: 'Bearer',
  },
  ChallengeParameters: {},
});

export function localIdp(ctx: AppContext): LocalIdentityProvider {
  if (!(ctx.idp instanceof LocalIdentityProvider)) {
    throw new CognitoFault('ResourceNotFoundException', 'The built-in identity provider is off (IDP=cognito)');
  }
  return ctx.idp;
}

export type Op = (ctx: AppContext, body: Record<string, unknown>, req: Request) => Promise<unknown>;
