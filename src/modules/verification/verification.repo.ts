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

/** Locks the token row for the transaction that redeems it (identity's verify-email). */
export async function findTokenForUpdate(trx: Knex.Transaction, tokenHash: string): Promise<VerificationTokenRow | undefined> {
  return trx('verification_tokens').where({ token_hash: tokenHash }).forUpdate().first();
}

export async function markTokenUsed(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('verification_tokens').where({ id }).update({ used_at: trx.fn.now() });
}

/** Deletes verification links expired over `graceDays` ago (the grace lets a late use still meet "expired", not "unknown"); answers how many. */
export async function pruneExpiredTokens(db: Knex | Knex.Transaction, graceDays: number): Promise<number> {
  return db('verification_tokens').where('expires_at', '<', db.raw('now() - make_interval(days => ?)', [graceDays])).del();
}
