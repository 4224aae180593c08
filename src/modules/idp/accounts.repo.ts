import type { Knex } from 'knex';

type Q = Knex | Knex.Transaction;

/**
 * Named commands (and the reads they pair with) other modules change accounts with: social
 * sign-in (oauth), the private contact address (me), verification links, and the lock that
 * serialises a user's draft creates (fundraisers).
 */

/** An account as social sign-in and verification see it. */
export interface AccountRow {
  id: string;
  email: string;
  email_verified: boolean;
  status: string;
  locale: string | null;
}

const ACCOUNT_COLUMNS = ['users.id', 'users.email', 'users.email_verified', 'users.status', 'users.locale'];

/** Case-insensitively, as the unique index on lower(email); locked so a concurrent link or sign-up waits. */
export async function accountByEmailForUpdate(trx: Knex.Transaction, email: string): Promise<AccountRow | undefined> {
  return trx('users').whereRaw('lower(email) = lower(?)', [email]).forUpdate().first(ACCOUNT_COLUMNS);
}

/** A social account: a users row and no password credential; verified when the provider says the address is. */
export async function createSocialAccount(
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

/** Locks the account's row: a user's concurrent creates (the unverified draft limit) serialise on it. */
export async function lockAccountRow(trx: Knex.Transaction, userId: string): Promise<void> {
  await trx('users').where({ id: userId }).forUpdate().first('id');
}

/** Sets a new, unverified private contact address. */
export async function setPrivateContact(db: Q, userId: string, email: string): Promise<void> {
  await db('users')
    .where({ id: userId })
    .update({ private_contact_email: email, private_contact_verified_at: null, updated_at: db.fn.now() });
}

// ---- redeeming verification links (verify-email.ts) ----

export async function accountForVerification(trx: Knex.Transaction, id: string) {
  return trx('users')
    .select('id', 'email', 'locale', 'email_verified', 'status', 'private_contact_email', 'private_contact_verified_at')
    .where({ id })
    .forUpdate()
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
