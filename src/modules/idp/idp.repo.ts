import type { Knex } from 'knex';

type Q = Knex | Knex.Transaction;

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  avatar: string | null;
  roles: string[];
  status: string;
  email_verified: boolean;
  profile_slug: string | null;
  locale: string | null;
  idp_subject: string | null;
}

const COLS = ['id', 'email', 'name', 'avatar', 'roles', 'status', 'email_verified', 'profile_slug', 'locale', 'idp_subject'];

export const findUserById = (db: Q, id: string): Promise<UserRow | undefined> => db('users').where({ id }).first(COLS);

export const findUserByEmail = (db: Q, email: string): Promise<UserRow | undefined> =>
  db('users').whereRaw('lower(email) = lower(?)', [email]).first(COLS);

export const findUserBySubject = (db: Q, subject: string): Promise<UserRow | undefined> =>
  db('users').where({ idp_subject: subject }).first(COLS);

export async function insertUser(trx: Q, row: { email: string; name: string | null; roles: string[]; locale?: string }): Promise<UserRow> {
  const [u] = await trx('users').insert(row).returning(COLS);
  return u;
}

export async function setIdpSubject(trx: Q, userId: string, subject: string) {
  await trx('users').where({ id: userId }).update({ idp_subject: subject });
}

/** Links an external subject to the unlinked account with this address (case-insensitively); false when there is none. */
export async function linkSubjectByEmail(db: Q, subject: string, email: string): Promise<boolean> {
  const n = await db('users').whereRaw('lower(email) = lower(?)', [email]).whereNull('idp_subject').update({ idp_subject: subject });
  return n > 0;
}

/** Every token issued before now stops working (sign-out everywhere). */
export async function cutOffTokens(db: Q, userId: string) {
  await db('users').where({ id: userId }).update({ tokens_valid_after: db.fn.now(), updated_at: db.fn.now() });
}

/** Claims an unused invitation (row-locked so one token makes one ambassador). */
export async function claimAmbassadorInvite(trx: Knex.Transaction, tokenHash: string, email: string): Promise<boolean> {
  const invite = await trx('ambassador_invites').where({ token_hash: tokenHash }).whereNull('used_at').forUpdate().first();
  if (!invite) return false;
  if (invite.email && invite.email.toLowerCase() !== email.toLowerCase()) return false;
  await trx('ambassador_invites').where({ id: invite.id }).update({ used_at: trx.fn.now() });
  return true;
}

export async function markInviteUsedBy(trx: Q, tokenHash: string, userId: string) {
  await trx('ambassador_invites').where({ token_hash: tokenHash }).update({ used_by: userId });
}

export async function insertAmbassadorInvite(db: Q, tokenHash: string, email: string | null) {
  await db('ambassador_invites').insert({ token_hash: tokenHash, email });
}

export async function addRole(db: Q, userId: string, role: string): Promise<void> {
  await db('users').where({ id: userId }).update({ roles: db.raw('array_append(roles, ?)', [role]), updated_at: db.fn.now() });
}

export async function removeRole(db: Q, userId: string, role: string): Promise<void> {
  await db('users').where({ id: userId }).update({ roles: db.raw('array_remove(roles, ?)', [role]), updated_at: db.fn.now() });
}

export async function setStatus(db: Q, userId: string, status: string): Promise<void> {
  await db('users').where({ id: userId }).update({ status, updated_at: db.fn.now() });
}

/** Remembers whose external refresh token this is (hash only) until the refresh cookie lapses. */
export async function rememberRefreshOwner(db: Q, tokenHash: string, userId: string, subject: string, ttlSeconds: number): Promise<void> {
  await db('refresh_token_owners')
    .insert({ token_hash: tokenHash, user_id: userId, subject, expires_at: db.raw(`now() + make_interval(secs => ?)`, [ttlSeconds]) })
    .onConflict('token_hash')
    .merge();
}

export async function findRefreshOwner(db: Q, tokenHash: string): Promise<{ user_id: string; subject: string } | undefined> {
  return db('refresh_token_owners').where({ token_hash: tokenHash }).where('expires_at', '>', db.fn.now()).first('user_id', 'subject');
}

export async function forgetRefreshOwners(db: Q, userId: string): Promise<void> {
  await db('refresh_token_owners').where({ user_id: userId }).del();
}

/** Deletes remembered refresh-token owners expired over `graceDays` ago (the grace lets a late use still meet "expired", not "unknown"); answers how many. */
export async function pruneExpiredRefreshOwners(db: Q, graceDays: number): Promise<number> {
  return db('refresh_token_owners').where('expires_at', '<', db.raw('now() - make_interval(days => ?)', [graceDays])).del();
}
