import { createHmac } from 'node:crypto';
import { jwksKeyLookup } from './jwks';
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
  RevokeTokenCommand,
  SignUpCommand,
  type AuthenticationResultType,
  type InitiateAuthCommandOutput,
} from '@aws-sdk/client-cognito-identity-provider';
import {
  IdpError,
  TOKEN_TTL_SECONDS,
  type AuthResult,
  type IdentityProvider,
  type IdpErrorKind,
  type SignUpInput,
  type TokenSet,
  type TokenVerification,
} from './port';

export interface CognitoSettings {
  region: string;
  userPoolId: string;
  clientId: string;
  clientSecret?: string;
}

// Cognito's exception names, mapped to what the API needs to tell apart.
const ERRORS: Record<string, IdpErrorKind> = {
  NotAuthorizedException: 'not_authorized',
  UserNotFoundException: 'not_authorized',
  UsernameExistsException: 'user_exists',
  AliasExistsException: 'user_exists',
  InvalidPasswordException: 'invalid_password',
  CodeMismatchException: 'code_mismatch',
  ExpiredCodeException: 'code_expired',
  UserNotConfirmedException: 'not_confirmed',
  PasswordResetRequiredException: 'password_reset_required',
};

/** Anything that is not a definite answer from Cognito counts as unreachable (retry later). */
export function toIdpError(err: unknown): IdpError {
  if (err instanceof IdpError) return err;
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number }; $fault?: string };
  const kind = e.name ? ERRORS[e.name] : undefined;
  if (kind) return new IdpError(kind, e.message ?? e.name!);
  const status = e.$metadata?.httpStatusCode;
  if (e.$fault === 'client' && status && status < 500 && e.name !== 'TooManyRequestsException') {
    return new IdpError('not_authorized', e.message ?? 'Rejected by the identity provider');
  }
  return new IdpError('unreachable', e.message ?? 'Identity provider unreachable');
}

/** The same port over an Amazon Cognito user pool (IDP=cognito). */
export class CognitoIdentityProvider implements IdentityProvider {
  readonly kind = 'cognito' as const;
  readonly verification: TokenVerification;

  constructor(
    private readonly s: CognitoSettings,
    readonly client: CognitoIdentityProviderClient = new CognitoIdentityProviderClient({ region: s.region }),
  ) {
    const issuer = `https://cognito-idp.${s.region}.amazonaws.com/${s.userPoolId}`;
    const jwksUri = `${issuer}/.well-known/jwks.json`;
    this.verification = { issuer, audience: s.clientId, jwksUri, getPublicKey: jwksKeyLookup(jwksUri) };
  }

  /** SECRET_HASH as Cognito defines it, needed when the app client has a secret. */
  secretHash(username: string): string | undefined {
    if (!this.s.clientSecret) return undefined;
    return createHmac('sha256', this.s.clientSecret).update(username + this.s.clientId).digest('base64');
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toIdpError(err);
    }
  }

  passwordMeetsPolicy(): boolean {
    // The pool's policy decides; InvalidPasswordException maps to 400.
    return true;
  }

  async signUp(input: SignUpInput): Promise<{ sub: string; userConfirmed: boolean }> {
    const out = await this.call(() =>
      this.client.send(
        new SignUpCommand({
          ClientId: this.s.clientId,
          SecretHash: this.secretHash(input.email),
          Username: input.email,
          Password: input.password,
          UserAttributes: [{ Name: 'email', Value: input.email }],
        }),
      ),
    );
    return { sub: out.UserSub!, userConfirmed: Boolean(out.UserConfirmed) };
  }

  async confirmSignUp(email: string, code: string): Promise<void> {
    await this.call(() =>
      this.client.send(
        new ConfirmSignUpCommand({ ClientId: this.s.clientId, SecretHash: this.secretHash(email), Username: email, ConfirmationCode: code }),
      ),
    );
  }

  private toAuthResult(out: { AuthenticationResult?: AuthenticationResultType; ChallengeName?: string; Session?: string }): AuthResult {
    if (out?.AuthenticationResult?.IdToken) return { kind: 'tokens', tokens: this.tokens(out.AuthenticationResult) };
    if (out?.ChallengeName) return { kind: 'challenge', challengeName: out.ChallengeName, session: out.Session ?? '' };
    throw new IdpError('unreachable', 'Unexpected answer from the identity provider');
  }

  private tokens(r: AuthenticationResultType): TokenSet {
    return {
      idToken: r.IdToken!,
      accessToken: r.AccessToken!,
      refreshToken: r.RefreshToken,
      expiresIn: r.ExpiresIn ?? TOKEN_TTL_SECONDS,
    };
  }

  async initiateAuth(email: string, password: string): Promise<AuthResult> {
    const out: InitiateAuthCommandOutput = await this.call(() =>
      this.client.send(
        new InitiateAuthCommand({
          ClientId: this.s.clientId,
          AuthFlow: 'USER_PASSWORD_AUTH',
          AuthParameters: { USERNAME: email, PASSWORD: password, ...this.secretParam(email) },
        }),
      ),
    );
    return this.toAuthResult(out);
  }

  private secretParam(username: string | undefined): Record<string, string> {
    const h = username ? this.secretHash(username) : undefined;
    return h ? { SECRET_HASH: h } : {};
  }

  async respondToNewPasswordChallenge(email: string, session: string, newPassword: string): Promise<AuthResult> {
    const out = await this.call(() =>
      this.client.send(
        new RespondToAuthChallengeCommand({
          ClientId: this.s.clientId,
          ChallengeName: 'NEW_PASSWORD_REQUIRED',
          Session: session,
          ChallengeResponses: { USERNAME: email, NEW_PASSWORD: newPassword, ...this.secretParam(email) },
        }),
      ),
    );
    return this.toAuthResult(out);
  }

  async refresh(refreshToken: string, username?: string): Promise<TokenSet> {
    const out = await this.call(() =>
      this.client.send(
        new InitiateAuthCommand({
          ClientId: this.s.clientId,
          AuthFlow: 'REFRESH_TOKEN_AUTH',
          AuthParameters: { REFRESH_TOKEN: refreshToken, ...this.secretParam(username) },
        }),
      ),
    );
    if (!out?.AuthenticationResult?.IdToken) throw new IdpError('not_authorized', 'Invalid Refresh Token');
    const t = this.tokens(out.AuthenticationResult);
    return { ...t, refreshToken: undefined };
  }

  async revokeRefreshToken(refreshToken: string): Promise<void> {
    await this.call(() =>
      this.client.send(new RevokeTokenCommand({ ClientId: this.s.clientId, ClientSecret: this.s.clientSecret, Token: refreshToken })),
    );
  }

  async deleteUser(sub: string): Promise<void> {
    try {
      await this.client.send(new AdminDeleteUserCommand({ UserPoolId: this.s.userPoolId, Username: sub }));
    } catch (err) {
      // Already gone (an earlier attempt got through before the process stopped): nothing left to do.
      if ((err as { name?: string }).name === 'UserNotFoundException') return;
      throw toIdpError(err);
    }
  }

  async globalSignOut(sub: string): Promise<void> {
    await this.call(() => this.client.send(new AdminUserGlobalSignOutCommand({ UserPoolId: this.s.userPoolId, Username: sub })));
  }

  async changePassword(input: { sub: string; email: string; accessToken?: string; currentPassword: string; newPassword: string }): Promise<void> {
    if (!input.accessToken) throw new IdpError('not_authorized', 'Access token required');
    await this.call(() =>
      this.client.send(
        new ChangePasswordCommand({ AccessToken: input.accessToken, PreviousPassword: input.currentPassword, ProposedPassword: input.newPassword }),
      ),
    );
  }

  async setPassword(email: string, newPassword: string): Promise<void> {
    await this.call(() =>
      this.client.send(
        new AdminSetUserPasswordCommand({ UserPoolId: this.s.userPoolId, Username: email, Password: newPassword, Permanent: true }),
      ),
    );
  }

  async forcePasswordReset(email: string): Promise<void> {
    await this.call(() => this.client.send(new AdminResetUserPasswordCommand({ UserPoolId: this.s.userPoolId, Username: email })));
  }

  async issueTokensForUser(): Promise<TokenSet> {
    // A Cognito pool mints tokens only through its own flows (hosted UI / custom auth).
    throw new IdpError('unsupported', 'The Cognito provider cannot mint a session for an externally authenticated user');
  }
}
