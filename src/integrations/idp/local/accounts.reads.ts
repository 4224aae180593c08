import type { Knex } from 'knex';
import type { CredentialRow } from './local-idp.repo';

type Q = Knex | Knex.Transaction;

/**
 * A declared view (read only) of the identity module's accounts (users) beside this provider's
 * credentials: the provider signs an account in by its address and status, and an integration
 * cannot import a module.
 */

export interface AccountRow extends Partial<CredentialRow> {
  id: string;
  email: string;
  email_verified: boolean;
  status: string;
}

/** The account with its local credential (null fields when it has none). */
export async function findAccountByEmail(db: Q, email: string): Promise<AccountRow | undefined> {
  return db('users as u')
    .leftJoin('idp_credentials as c', 'c.user_id', 'u.id')
    .whereRaw('lower(u.email) = lower(?)', [email])
    .first('u.id', 'u.email', 'u.email_verified', 'u.status', 'c.user_id', 'c.password_hash', 'c.confirmed', 'c.force_new_password');
}

export async function findAccountById(db: Q, id: string): Promise<AccountRow | undefined> {
  return db('users as u')
    .leftJoin('idp_credentials as c', 'c.user_id', 'u.id')
    .where('u.id', id)
    .first('u.id', 'u.email', 'u.email_verified', 'u.status', 'c.user_id', 'c.password_hash', 'c.confirmed', 'c.force_new_password');
}
