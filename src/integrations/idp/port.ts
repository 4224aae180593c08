import type { Knex } from 'knex';

/**
 * The identity provider as the rest of the service sees it. Two implementations: the built-in
 * local provider (IDP=local, the default) and Amazon Cognito (IDP=cognito). Usernames are the
 * login email; `sub` is the provider's subject (users.id for the local provider).
 */

export const TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TTL_SECONDS = 90 * 24 * 3600;

export interface TokenSet {
  idToken: string;
  accessToken: string;
  /** Absent on a refresh: the refresh token stays the same (as Cognito does). */
  refreshToken?: string;
  expiresIn: number;
}

export type AuthResult =
  | { kind: 'tokens'; tokens: TokenSet }
  | { kind: 'challenge'; challengeName: string; session: string };

/** Why the identity provider refused; `unreachable` is the only transient kind. */
export type IdpErrorKind =
  | 'unreachable'
  | 'not_authorized'
  | 'user_exists'
  | 'invalid_password'
  | 'code_mismatch'
  | 'code_expired'
  | 'not_confirmed'
  | 'user_disabled'
  | 'password_reset_required'
  | 'no_password'
  | 'unsupported';

export class IdpError extends Error {
  constructor(
    readonly kind: IdpErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'IdpError';
  }

  get unreachable(): boolean {
    return this.kind === 'unreachable';
  }
}

/** What the credential resolver needs to verify an ID token. */
export interface TokenVerification {
  issuer: string;
  /** The app client id: `aud` of ID tokens, `client_id` of access tokens. */
  audience: string;
  jwksUri: string;
  /** PEM public key for a `kid`, or null when the provider does not know it. */
  getPublicKey(kid: string): Promise<string | null>;
}

export interface SignUpInput {
  email: string;
  password: string;
  /** The users row created for this account (the local provider keys on it). */
  userId: string;
  /** The caller's transaction (the local provider writes in it; Cognito ignores it). */
  trx?: Knex | Knex.Transaction;
}

export interface IdentityProvider {
  readonly kind: 'local' | 'cognito';
  readonly verification: TokenVerification;

  signUp(input: SignUpInput): Promise<{ sub: string; userConfirmed: boolean }>;
  confirmSignUp(email: string, code: string): Promise<void>;
  /** USER_PASSWORD_AUTH: tokens, or a further challenge (e.g. NEW_PASSWORD_REQUIRED). */
  initiateAuth(email: string, password: string): Promise<AuthResult>;
  respondToNewPasswordChallenge(email: string, session: string, newPassword: string): Promise<AuthResult>;
  /** REFRESH_TOKEN_AUTH. `username` helps providers that sign requests with a secret hash. */
  refresh(refreshToken: string, username?: string): Promise<TokenSet>;
  /** Revokes one refresh token (and the tokens issued from it where the provider can). */
  revokeRefreshToken(refreshToken: string): Promise<void>;
  /** Revokes every refresh token of the account. */
  globalSignOut(sub: string): Promise<void>;
  changePassword(input: { sub: string; email: string; accessToken?: string; currentPassword: string; newPassword: string }): Promise<void>;
  /** Sets a permanent password (after a verified reset code); clears a forced reset. */
  setPassword(email: string, newPassword: string): Promise<void>;
  /** Operator-forced reset: the next sign-in must choose a new password. */
  forcePasswordReset(email: string): Promise<void>;
  /** Mints a session for an account already authenticated by other means (social sign-in). */
  issueTokensForUser(userId: string, opts?: { impersonatedBy?: string | null }): Promise<TokenSet>;
  /**
   * Removes the account from the provider for good (privacy erasure): its password, sessions and
   * codes locally, AdminDeleteUser on Cognito. An account already gone is not an error.
   */
  deleteUser(sub: string): Promise<void>;
  /** Decides the password policy (400 `Password does not meet requirements` when false). */
  passwordMeetsPolicy(password: string): boolean;
}
