import type { Knex } from 'knex';

type Q = Knex | Knex.Transaction;

export interface AccountRow {
  id: string;
  email: string;
  email_verified: boolean;
  status: string;
  locale: string | null;
}

const ACCOUNT_COLUMNS = ['users.id', 'users.email', 'users.email_verified', 'users.status', 'users.locale'];

export async function findUserByIdentity(db: Q, provider: string, subject: string): Promise<AccountRow | undefined> {
  return db('user_identities')
    .join('users', 'users.id', 'user_identities.user_id')
    .where({ 'user_identities.provider': provider, 'user_identities.subject': subject })
    .first(ACCOUNT_COLUMNS);
}

/** Case-insensitive, as the unique index on lower(email); locked so a concurrent link waits. */
export async function findUserByEmailForUpdate(trx: Knex.Transaction, email: string): Promise<AccountRow | undefined> {
  return trx('users').whereRaw('lower(email) = lower(?)', [email]).forUpdate().first(ACCOUNT_COLUMNS);
}

export async function insertIdentity(
  db: Q,
  row: { provider: string; subject: string; user_id: string; email: string },
): Promise<void> {
  await db('user_identities').insert(row);
}

/** A social account: a users row and no password credential. */
export async function createSocialUser(
  trx: Knex.Transaction,
  u: { email: string; name: string | null; email_verified: boolean; locale?: string },
): Promise<AccountRow> {
  const [row] = await trx('users')
    .insert({
      email: u.email,
      name: u.name,
      email_verified: u.email_verified,
      email_verified_at: u.email_verified ? trx.fn.now() : null,
      ...(u.locale ? { locale: u.locale } : {}),
    })
    .returning(['id', 'email', 'email_verified', 'status', 'locale']);
  return row as AccountRow;
}
