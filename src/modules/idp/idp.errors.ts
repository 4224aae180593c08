import { ApiError } from '../../http/errors';
import { IdpError } from '../../integrations/idp/port';
import { accountDisabled } from './session';

export const passwordRefused = () =>
  new ApiError(400, 'Password does not meet requirements', 'Use at least 8 characters with a letter and a digit', {
    code: 'INVALID_PASSWORD',
  });
export const emailTaken = () =>
  new ApiError(409, 'Email already registered', 'An account with this email address already exists', {
    code: 'EMAIL_ALREADY_REGISTERED',
  });
export const invalidCode = () => new ApiError(400, 'Invalid verification code', 'The code is wrong or has already been used');
export const expiredCode = () => new ApiError(400, 'Verification code expired', 'The code has expired; request a new one');
export const invalidCredentials = () => new ApiError(401, 'Invalid credentials', 'Incorrect email or password');
export const sessionExpired = () =>
  new ApiError(401, 'Session expired, please sign in again', 'Session expired, please sign in again', { code: 'SESSION_EXPIRED' });
export const idpUnavailable = () =>
  new ApiError(503, 'Auth service temporarily unavailable, please retry', 'Auth service temporarily unavailable, please retry');
export const noPassword = () =>
  new ApiError(400, 'No password to change', 'This account signs in through a social provider and has no password; use forgot password to set one', {
    code: 'NO_PASSWORD',
  });

/** The API's answer for an identity-provider refusal (sign-in context for not_authorized). */
export function fromIdpError(err: unknown): unknown {
  if (!(err instanceof IdpError)) return err;
  switch (err.kind) {
    case 'unreachable':
      return idpUnavailable();
    case 'invalid_password':
      return passwordRefused();
    case 'user_exists':
      return emailTaken();
    case 'code_mismatch':
      return invalidCode();
    case 'code_expired':
      return expiredCode();
    case 'not_authorized':
      return invalidCredentials();
    case 'user_disabled':
      return accountDisabled('disabled');
    case 'not_confirmed':
      return new ApiError(403, 'Account not confirmed', 'Confirm the account with the code we sent before signing in', {
        code: 'USER_NOT_CONFIRMED',
      });
    case 'password_reset_required':
      return new ApiError(403, 'Password reset required', 'Reset your password with forgot password before signing in', {
        code: 'PASSWORD_RESET_REQUIRED',
      });
    case 'no_password':
      return noPassword();
    case 'unsupported':
      return new ApiError(501, 'Not supported', err.message);
  }
}
