import type { Knex } from 'knex';

/**
 * A declared view (read only) of the identity module's accounts: a resend goes only to an
 * existing, active, unverified login address. Identity imports this module (it mails a link on
 * sign-up), so this module reads the account here rather than through identity's index.
 */
export async function accountByLoginEmail(db: Knex, email: string) {
  return db('users')
    .select('id', 'email', 'locale', 'email_verified', 'status')
    .whereRaw('lower(email) = lower(?)', [email])
    .first();
}
