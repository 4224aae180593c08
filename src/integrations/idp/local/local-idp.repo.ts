import type { Knex } from 'knex';

type Q = Knex | Knex.Transaction;

export interface SigningKeyRow {
  kid: string;
  private_pem: string;
  public_pem: string;
  created_at: Date;
  retired_at: Date | null;
}

export interface CredentialRow {
  user_id: string;
  password_hash: string | null;
  confirmed: boolean;
  force_new_password: boolean;
}

export interface SessionRow {
  id: string;
  user_id: string;
  impersonated_by: string | null;
  auth_time: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** The key that signs: the newest one not retired (a rotation retires every other one). */
export async function currentSigningKid(db: Q): Promise<string | null> {
  const row = await db('idp_signing_keys').whereNull('retired_at').orderBy('created_at', 'desc').orderBy('kid', 'desc').first('kid');
  return row?.kid ?? null;
}

export const signingKey = (db: Q, kid: string): Promise<SigningKeyRow | undefined> => db('idp_signing_keys').where({ kid }).first();

/** Keys not retired, or retired less than `forSeconds` ago by the database's clock. */
const published = (db: Q, forSeconds: number) =>
  db('idp_signing_keys').where((q) => q.whereNull('retired_at').orWhereRaw('retired_at > now() - make_interval(secs => ?)', [forSeconds]));

export const publishedSigningKey = (db: Q, kid: string, forSeconds: number): Promise<SigningKeyRow | undefined> =>
  published(db, forSeconds).andWhere({ kid }).first();

export const publishedSigningKeys = (db: Q, forSeconds: number): Promise<Pick<SigningKeyRow, 'kid' | 'public_pem' | 'retired_at'>[]> =>
  published(db, forSeconds)
    .orderByRaw('retired_at desc nulls first')
    .orderBy('created_at', 'desc')
    .select('kid', 'public_pem', 'retired_at');

/** Serializes rotations (and first-key creation) across processes, for the transaction. */
export async function lockSigningKeys(trx: Knex.Transaction): Promise<void> {
  await trx.raw('lock table idp_signing_keys in share row exclusive mode');
}

/** Retires every key not retired yet; answers their kids. */
export async function retireSigningKeys(trx: Knex.Transaction): Promise<string[]> {
  const rows = await trx('idp_signing_keys').whereNull('retired_at').update({ retired_at: trx.fn.now() }).returning('kid');
  return rows.map((r: { kid: string }) => r.kid);
}

export async function insertSigningKey(db: Q, row: { kid: string; private_pem: string; public_pem: string }) {
  await db('idp_signing_keys').insert(row);
}

/** Whether the account has a password here (a social account has none). */
export async function hasPassword(db: Q, userId: string): Promise<boolean> {
  const row = await db('idp_credentials').where({ user_id: userId }).whereNotNull('password_hash').first('user_id');
  return Boolean(row);
}

export async function upsertCredential(
  db: Q,
  userId: string,
  fields: Partial<Pick<CredentialRow, 'password_hash' | 'confirmed' | 'force_new_password'>>,
) {
  await db('idp_credentials')
    .insert({ user_id: userId, ...fields, updated_at: db.fn.now() })
    .onConflict('user_id')
    .merge({ ...fields, updated_at: db.fn.now() });
}

export async function insertSession(
  db: Q,
  row: { user_id: string; refresh_token_hash: string; impersonated_by: string | null; expires_at: Date; auth_time?: Date },
): Promise<SessionRow> {
  const [s] = await db('idp_sessions').insert(row).returning(['id', 'user_id', 'impersonated_by', 'auth_time', 'expires_at', 'revoked_at']);
  return s;
}

export async function findSessionByTokenHash(db: Q, hash: string): Promise<SessionRow | undefined> {
  return db('idp_sessions').where({ refresh_token_hash: hash }).first();
}

export async function touchSession(db: Q, id: string) {
  await db('idp_sessions').where({ id }).update({ last_used_at: db.fn.now() });
}

export async function revokeSessionByTokenHash(db: Q, hash: string) {
  await db('idp_sessions').where({ refresh_token_hash: hash }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}

export async function revokeAllSessions(db: Q, userId: string): Promise<number> {
  return db('idp_sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}

export type CodePurpose = 'confirm_signup' | 'password_reset';

/** Replaces any unused code of this purpose with a new one. */
export async function replaceCode(db: Q, userId: string, purpose: CodePurpose, codeHash: string, expiresAt: Date) {
  await db('idp_codes').where({ user_id: userId, purpose }).whereNull('used_at').update({ used_at: db.fn.now() });
  await db('idp_codes').insert({ user_id: userId, purpose, code_hash: codeHash, expires_at: expiresAt });
}

export interface CodeRow {
  id: string;
  code_hash: string;
  attempts: number;
  expires_at: Date;
  used_at: Date | null;
}

/** The newest unused code of this purpose (a new code replaces the old). */
export async function latestOpenCode(db: Q, userId: string, purpose: CodePurpose): Promise<CodeRow | undefined> {
  return db('idp_codes').where({ user_id: userId, purpose }).whereNull('used_at').orderBy('created_at', 'desc').first();
}

/** Marks a code used; false when someone else used it first (single use under concurrency). */
export async function consumeCode(db: Q, id: string): Promise<boolean> {
  const n = await db('idp_codes').where({ id }).whereNull('used_at').update({ used_at: db.fn.now() });
  return n === 1;
}

export async function countFailedAttempt(db: Q, id: string, maxAttempts: number) {
  await db('idp_codes')
    .where({ id })
    .update({
      attempts: db.raw('attempts + 1'),
      used_at: db.raw('case when attempts + 1 >= ? then now() else used_at end', [maxAttempts]),
    });
}

/** Deletes confirmation and reset codes expired over `graceDays` ago (the grace lets a late use still meet "expired", not "unknown"); answers how many. */
export async function pruneExpiredCodes(db: Q, graceDays: number): Promise<number> {
  return db('idp_codes').where('expires_at', '<', db.raw('now() - make_interval(days => ?)', [graceDays])).del();
}

/** Deletes refresh sessions expired over `graceDays` ago (the grace lets a late use still meet "expired", not "unknown"); answers how many. */
export async function pruneExpiredSessions(db: Q, graceDays: number): Promise<number> {
  return db('idp_sessions').where('expires_at', '<', db.raw('now() - make_interval(days => ?)', [graceDays])).del();
}

/** Everything the built-in provider holds for an account: its password, sessions and codes (erasure). */
export async function deleteAccount(db: Q, userId: string): Promise<void> {
  await db('idp_codes').where({ user_id: userId }).delete();
  await db('idp_sessions').where({ user_id: userId }).delete();
  await db('idp_credentials').where({ user_id: userId }).delete();
}
