/**
 * Read-only view for mail about notifications and for unsubscribing. Foreign table it reads:
 * - users (idp): the recipient of a mail or the owner of an address (email, locale, status,
 *   whether the address is verified); identity publishes no read of these private fields.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface Recipient {
  id: string;
  email: string;
  locale: string | null;
  status: string;
  email_verified: boolean;
}

export async function recipient(db: Q, userId: string): Promise<Recipient | undefined> {
  return db('users').where({ id: userId }).first('id', 'email', 'locale', 'status', 'email_verified');
}

export async function userByEmail(db: Q, email: string): Promise<Recipient | undefined> {
  return db('users').whereRaw('lower(email) = lower(?)', [email]).first('id', 'email', 'locale', 'status', 'email_verified');
}
