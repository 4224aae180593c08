import { randomBytes } from 'node:crypto';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { createIdentityProvider, IdpError } from '../../integrations/idp';
import { normalizeEmail } from '../../infra/email';
import { sha256Hex } from '../../infra/hash';
import { revokeAllForUser } from '../api-keys';
import { globalSignOut } from './idp.service';
import * as repo from './idp.repo';

/** Operator operations on accounts (the CLI calls these; errors are one-line messages). */
export class AdminError extends Error {}

export const GRANTABLE_ROLES = ['admin', 'staff', 'ambassador'] as const;
export const STATUSES = ['active', 'suspended', 'banned', 'deactivated'] as const;

async function userOrFail(db: Db, email: string | undefined) {
  if (!email) throw new AdminError('an email address is required');
  const u = await repo.findUserByEmail(db, email.trim());
  if (!u) throw new AdminError(`no account with email ${email}`);
  return u;
}

function roleOrFail(role: string | undefined): string {
  if (!role || !(GRANTABLE_ROLES as readonly string[]).includes(role)) {
    throw new AdminError(`role must be one of ${GRANTABLE_ROLES.join(', ')}`);
  }
  return role;
}

export async function grantRole(db: Db, email: string | undefined, role: string | undefined): Promise<string> {
  const r = roleOrFail(role);
  const u = await userOrFail(db, email);
  if (u.roles.includes(r)) return `${u.email} already has role ${r}`;
  await repo.addRole(db, u.id, r);
  return `${u.email} now has role ${r}`;
}

export async function revokeRole(db: Db, email: string | undefined, role: string | undefined): Promise<string> {
  const r = roleOrFail(role);
  const u = await userOrFail(db, email);
  if (!u.roles.includes(r)) return `${u.email} does not have role ${r}`;
  await repo.removeRole(db, u.id, r);
  return `${u.email} no longer has role ${r}`;
}

export async function setUserStatus(db: Db, email: string | undefined, status: string | undefined): Promise<string> {
  if (!status || !(STATUSES as readonly string[]).includes(status)) throw new AdminError(`status must be one of ${STATUSES.join(', ')}`);
  const u = await userOrFail(db, email);
  // Every credential kind checks the status on each request, so this takes effect at once.
  await repo.setStatus(db, u.id, status);
  return `${u.email} is now ${status}`;
}

/** Ends every session and revokes every API key of the account (for good). */
export async function signOutEverywhere(db: Db, config: Config, email: string | undefined): Promise<string> {
  const u = await userOrFail(db, email);
  const keys = await revokeAllForUser(db, u.id);
  await globalSignOut({ db, idp: createIdentityProvider(config, db) }, u.id);
  return `${u.email} signed out everywhere; ${keys} API key(s) revoked`;
}

/** The next sign-in answers NEW_PASSWORD_REQUIRED (local) or requires a reset (Cognito). */
export async function forcePasswordReset(db: Db, config: Config, email: string | undefined): Promise<string> {
  const u = await userOrFail(db, email);
  try {
    await createIdentityProvider(config, db).forcePasswordReset(u.email);
  } catch (err) {
    if (err instanceof IdpError) throw new AdminError(`${u.email}: ${err.message}`);
    throw err;
  }
  return `${u.email} must choose a new password at the next sign-in`;
}

/** A single-use ambassador invitation, optionally bound to one address; prints the token once. */
export async function createAmbassadorInvite(db: Db, email: string | undefined): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  await repo.insertAmbassadorInvite(db, sha256Hex(token), email === undefined ? null : normalizeEmail(email));
  return `ambassador invite token: ${token}`;
}
