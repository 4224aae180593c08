import type { Knex } from 'knex';

export type TokenKind = 'email' | 'private_contact';

export interface VerificationTokenRow {
  id: string;
  user_id: string;
  kind: TokenKind;
  email: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

/** Stores a new token and drops the user's older unused ones of the same kind (a new link replaces the old). */
export async function replaceToken(
  db: Knex | Knex.Transaction,
  row: { user_id: string; kind: TokenKind; email: string; token_hash: string; expires_at: Date },
): Promise<void> {
  await db('verification_tokens').where({ user_id: row.user_id, kind: row.kind }).whereNull('used_at').delete();
  await db('verification_tokens').insert(row);
}

/** Locks the token row for the verification transaction. */
export async function findTokenForUpdate(trx: Knex.Transaction, tokenHash: string): Promise<VerificationTokenRow | undefined> {
  return trx('verification_tokens').where({ token_hash: tokenHash }).forUpdate().first();
}

export async function markTokenUsed(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('verification_tokens').where({ id }).update({ used_at: trx.fn.now() });
}

export async function findUserByLoginEmail(db: Knex, email: string) {
  return db('users')
    .select('id', 'email', 'locale', 'email_verified', 'status')
    .whereRaw('lower(email) = lower(?)', [email])
    .first();
}

export async function findUserForUpdate(trx: Knex.Transaction, id: string) {
  return trx('users')
    .select('id', 'email', 'locale', 'email_verified', 'status', 'private_contact_email', 'private_contact_verified_at')
    .where({ id })
    .forUpdate()
    .first();
}

export async function findUserContact(db: Knex | Knex.Transaction, id: string) {
  return db('users')
    .select('id', 'email', 'locale', 'private_contact_email', 'private_contact_verified_at')
    .where({ id })
    .first();
}

/** Marks the login address verified, only while it is still the address the link was sent to. */
export async function markEmailVerified(trx: Knex.Transaction, userId: string, email: string): Promise<boolean> {
  const n = await trx('users')
    .where({ id: userId })
    .whereRaw('lower(email) = lower(?)', [email])
    .update({ email_verified: true, email_verified_at: trx.raw('coalesce(email_verified_at, now())'), updated_at: trx.fn.now() });
  return n > 0;
}

/** Another account already holds this private contact address, verified. */
export async function privateContactTakenByOther(trx: Knex.Transaction, userId: string, email: string): Promise<boolean> {
  const row = await trx('users')
    .where('id', '<>', userId)
    .whereRaw('lower(private_contact_email) = lower(?)', [email])
    .whereNotNull('private_contact_verified_at')
    .first('id');
  return Boolean(row);
}

export async function markPrivateContactVerified(trx: Knex.Transaction, userId: string, email: string): Promise<boolean> {
  const n = await trx('users')
    .where({ id: userId })
    .whereRaw('lower(private_contact_email) = lower(?)', [email])
    .update({ private_contact_verified_at: trx.fn.now(), updated_at: trx.fn.now() });
  return n > 0;
}

/** Sets a new, unverified private contact address. */
export async function setPrivateContact(db: Knex | Knex.Transaction, userId: string, email: string): Promise<void> {
  await db('users')
    .where({ id: userId })
    .update({ private_contact_email: email, private_contact_verified_at: null, updated_at: db.fn.now() });
}

/** Deletes verification links expired over `graceDays` ago (the grace lets a late use still meet "expired", not "unknown"); answers how many. */
export async function pruneExpiredTokens(db: Knex | Knex.Transaction, graceDays: number): Promise<number> {
  return db('verification_tokens').where('expires_at', '<', db.raw('now() - make_interval(days => ?)', [graceDays])).del();
}
