import type { Knex } from 'knex';

/**
 * What privacy reads of the account (identity owns users): the strings an erasure scrubs
 * elsewhere, the provider subject to delete, and where to send the export mail.
 */
export interface AccountForPrivacy {
  id: string;
  email: string;
  name: string | null;
  profile_slug: string | null;
  idp_subject: string | null;
  locale: string;
}

export function accountForPrivacy(db: Knex, userId: string): Promise<AccountForPrivacy | undefined> {
  return db('users').where({ id: userId }).first('id', 'email', 'name', 'profile_slug', 'idp_subject', 'locale');
}

export async function accountIdByEmail(db: Knex, email: string): Promise<string | undefined> {
  return (await db('users').whereRaw('lower(email) = lower(?)', [email]).first('id'))?.id;
}
