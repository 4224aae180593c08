import { randomBytes, randomUUID } from 'node:crypto';
import { sha256Hex } from '../../../infra/hash';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import jwt from 'jsonwebtoken';
import type { Knex } from 'knex';
import {
  IdpError,
  REFRESH_TTL_SECONDS,
  TOKEN_TTL_SECONDS,
  type AuthResult,
  type IdentityProvider,
  type SignUpInput,
  type TokenSet,
  type TokenVerification,
} from '../port';
import { redeemCode } from '../codes';
import { findAccountByEmail, findAccountById, type AccountRow } from './accounts.reads';
import * as repo from './local-idp.repo';
import { SigningKeyStore } from './signing-keys';

/** The app client id of the built-in provider: `aud` of ID tokens, `client_id` of access tokens. */
export const LOCAL_CLIENT_ID = 'local-app-client';
export const localIssuer = (publicUrl: string) => `${publicUrl}/local-idp`;

const CHALLENGE_TTL_SECONDS = 180;

/** At least 8 characters with a letter and a digit (docs/decisions/0018-local-identity-provider.md); 256 caps hashing cost. */
export function localPasswordPolicy(password: string): boolean {
  return password.length >= 8 && password.length <= 256 && /\p{L}/u.test(password) && /\p{Nd}/u.test(password);
}

// Argon2id is the library's default algorithm (and the one we want).
const hashPassword = (pw: string) => argonHash(pw);

/** The built-in identity provider (IDP=local): same behaviour as the Cognito user pool. */
export class LocalIdentityProvider implements IdentityProvider {
  readonly kind = 'local' as const;
  readonly keys: SigningKeyStore;
  readonly issuer: string;
  readonly verification: TokenVerification;
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly db: Knex,
    publicUrl: string,
  ) {
    this.keys = new SigningKeyStore(db);
    this.issuer = localIssuer(publicUrl);
    this.verification = {
      issuer: this.issuer,
      audience: LOCAL_CLIENT_ID,
      jwksUri: `${this.issuer}/.well-known/jwks.json`,
      // Asked of the key table itself, not a cached JWKS: every process accepts a key another one
      // just made current, and refuses one past its time at once (credentials.ts memoizes a
      // verified token, never past its own expiry).
      getPublicKey: (kid) => this.keys.publicKey(kid),
    };
  }

  passwordMeetsPolicy(password: string): boolean {
    return localPasswordPolicy(password);
  }

  private requirePolicy(password: string) {
    if (!this.passwordMeetsPolicy(password)) {
      throw new IdpError('invalid_password', 'Password did not conform with policy: at least 8 characters with a letter and a digit');
    }
  }

  async signUp(input: SignUpInput): Promise<{ sub: string; userConfirmed: boolean }> {
    this.requirePolicy(input.password);
    const db = input.trx ?? this.db;
    const existing = await findAccountByEmail(db, input.email);
    if (existing && existing.id !== input.userId) throw new IdpError('user_exists', 'An account with the given email already exists.');
    // The local provider confirms accounts at once (no confirmation code round trip).
    await repo.upsertCredential(db, input.userId, { password_hash: await hashPassword(input.password), confirmed: true });
    return { sub: input.userId, userConfirmed: true };
  }

  async confirmSignUp(email: string, code: string): Promise<void> {
    const account = await findAccountByEmail(this.db, email);
    if (!account) throw new IdpError('code_mismatch', 'Invalid verification code provided, please try again.');
    const r = await redeemCode(this.db, account.id, 'confirm_signup', code);
    if (r === 'expired') throw new IdpError('code_expired', 'Invalid code provided, please request a code again.');
    if (r === 'mismatch') throw new IdpError('code_mismatch', 'Invalid verification code provided, please try again.');
    await repo.upsertCredential(this.db, account.id, { confirmed: true });
  }

  /** Verifies the password in constant-ish time whether or not the account exists. */
  private async checkPassword(email: string, password: string): Promise<AccountRow> {
    const account = await findAccountByEmail(this.db, email);
    if (!account?.password_hash) {
      this.dummyHash ??= hashPassword(randomUUID());
      await argonVerify(await this.dummyHash, password).catch(() => false);
      throw new IdpError('not_authorized', 'Incorrect username or password.');
    }
    const ok = await argonVerify(account.password_hash, password).catch(() => false);
    if (!ok) throw new IdpError('not_authorized', 'Incorrect username or password.');
    if (account.status !== 'active') throw new IdpError('user_disabled', 'User is disabled.');
    if (account.confirmed === false) throw new IdpError('not_confirmed', 'User is not confirmed.');
    return account;
  }

  async initiateAuth(email: string, password: string): Promise<AuthResult> {
    const account = await this.checkPassword(email, password);
    if (account.force_new_password) {
      const key = await this.keys.current();
      const session = jwt.sign({ token_use: 'challenge', challenge: 'NEW_PASSWORD_REQUIRED' }, key.privatePem, {
        algorithm: 'RS256',
        keyid: key.kid,
        subject: account.id,
        issuer: this.issuer,
        expiresIn: CHALLENGE_TTL_SECONDS,
      });
      return { kind: 'challenge', challengeName: 'NEW_PASSWORD_REQUIRED', session };
    }
    return { kind: 'tokens', tokens: await this.issueTokensForUser(account.id) };
  }

  async respondToNewPasswordChallenge(email: string, session: string, newPassword: string): Promise<AuthResult> {
    const account = await findAccountByEmail(this.db, email);
    const claims = await this.verifyOwnToken(session);
    if (!account || !claims || claims.token_use !== 'challenge' || claims.sub !== account.id || !account.force_new_password) {
      throw new IdpError('not_authorized', 'Invalid session for the user.');
    }
    this.requirePolicy(newPassword);
    await repo.upsertCredential(this.db, account.id, { password_hash: await hashPassword(newPassword), force_new_password: false });
    return { kind: 'tokens', tokens: await this.issueTokensForUser(account.id) };
  }

  async refresh(refreshToken: string): Promise<TokenSet> {
    let session: repo.SessionRow | undefined;
    let account: AccountRow | undefined;
    try {
      session = await repo.findSessionByTokenHash(this.db, sha256Hex(refreshToken));
      if (session) account = await findAccountById(this.db, session.user_id);
    } catch (err) {
      // The provider's store is down: a transient failure (503, cookies kept), not an expired session.
      throw new IdpError('unreachable', `Identity store unavailable: ${(err as Error).message}`);
    }
    if (!session || session.revoked_at || session.expires_at.getTime() <= Date.now()) {
      throw new IdpError('not_authorized', 'Invalid Refresh Token');
    }
    if (!account || account.status !== 'active') throw new IdpError('not_authorized', 'User is disabled.');
    await repo.touchSession(this.db, session.id);
    return this.signTokens(account, session);
  }

  /** The account a refresh token belongs to (revoked or not), for sign-out without an ID token. */
  async ownerOfRefreshToken(refreshToken: string): Promise<string | undefined> {
    return (await repo.findSessionByTokenHash(this.db, sha256Hex(refreshToken)))?.user_id;
  }

  async revokeRefreshToken(refreshToken: string): Promise<void> {
    await repo.revokeSessionByTokenHash(this.db, sha256Hex(refreshToken));
  }

  async deleteUser(sub: string): Promise<void> {
    await repo.deleteAccount(this.db, sub);
  }

  async globalSignOut(sub: string): Promise<void> {
    await repo.revokeAllSessions(this.db, sub);
  }

  async changePassword(input: { sub: string; currentPassword: string; newPassword: string }): Promise<void> {
    const account = await findAccountById(this.db, input.sub);
    if (!account?.password_hash) throw new IdpError('no_password', 'This account has no password');
    const ok = await argonVerify(account.password_hash, input.currentPassword).catch(() => false);
    if (!ok) throw new IdpError('not_authorized', 'Incorrect username or password.');
    this.requirePolicy(input.newPassword);
    await repo.upsertCredential(this.db, account.id, { password_hash: await hashPassword(input.newPassword), force_new_password: false });
  }

  async setPassword(email: string, newPassword: string): Promise<void> {
    this.requirePolicy(newPassword);
    const account = await findAccountByEmail(this.db, email);
    if (!account) throw new IdpError('not_authorized', 'User does not exist.');
    await repo.upsertCredential(this.db, account.id, {
      password_hash: await hashPassword(newPassword),
      force_new_password: false,
      confirmed: true,
    });
  }

  async forcePasswordReset(email: string): Promise<void> {
    const account = await findAccountByEmail(this.db, email);
    if (!account) throw new IdpError('not_authorized', 'User does not exist.');
    if (!account.password_hash) throw new IdpError('no_password', 'This account has no password');
    await repo.upsertCredential(this.db, account.id, { force_new_password: true });
  }

  async issueTokensForUser(userId: string, opts: { impersonatedBy?: string | null } = {}): Promise<TokenSet> {
    const account = await findAccountById(this.db, userId);
    if (!account) throw new IdpError('not_authorized', 'User does not exist.');
    const refreshToken = randomBytes(48).toString('base64url');
    const session = await repo.insertSession(this.db, {
      user_id: userId,
      refresh_token_hash: sha256Hex(refreshToken),
      impersonated_by: opts.impersonatedBy ?? null,
      expires_at: new Date(Date.now() + REFRESH_TTL_SECONDS * 1000),
    });
    return { ...(await this.signTokens(account, session)), refreshToken };
  }

  /** ID and access tokens with Cognito's claims; origin_jti names the session they belong to. */
  private async signTokens(account: AccountRow, session: repo.SessionRow): Promise<TokenSet> {
    const key = await this.keys.current();
    const authTime = Math.floor(session.auth_time.getTime() / 1000);
    const common = { origin_jti: session.id, auth_time: authTime, event_id: randomUUID() };
    const opts = { algorithm: 'RS256' as const, keyid: key.kid, issuer: this.issuer, subject: account.id, expiresIn: TOKEN_TTL_SECONDS };
    const idToken = jwt.sign(
      {
        ...common,
        token_use: 'id',
        email: account.email,
        email_verified: account.email_verified,
        'cognito:username': account.id,
      },
      key.privatePem,
      { ...opts, audience: LOCAL_CLIENT_ID, jwtid: randomUUID() },
    );
    const accessToken = jwt.sign(
      { ...common, token_use: 'access', client_id: LOCAL_CLIENT_ID, scope: 'aws.cognito.signin.user.admin', username: account.id },
      key.privatePem,
      { ...opts, jwtid: randomUUID() },
    );
    return { idToken, accessToken, expiresIn: TOKEN_TTL_SECONDS };
  }

  /** Verifies a token this provider signed (any token_use); null when it does not verify. */
  async verifyOwnToken(token: string, opts: { ignoreExpiration?: boolean } = {}): Promise<jwt.JwtPayload | null> {
    const decoded = jwt.decode(token, { complete: true });
    const kid = decoded?.header.kid;
    if (!kid) return null;
    const pem = await this.keys.publicKey(kid);
    if (!pem) return null;
    try {
      const claims = jwt.verify(token, pem, { algorithms: ['RS256'], issuer: this.issuer, ignoreExpiration: opts.ignoreExpiration });
      // Everything this provider signs expires; a token without exp was not minted here as such.
      return typeof claims === 'string' || typeof claims.exp !== 'number' ? null : claims;
    } catch {
      return null;
    }
  }
}
