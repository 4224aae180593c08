import type { Knex } from 'knex';

type Q = Knex | Knex.Transaction;

/** The account a provider's subject is linked to (the link is deleted with its account). */
export async function linkedUserId(db: Q, provider: string, subject: string): Promise<string | undefined> {
  const row = await db('user_identities').where({ provider, subject }).first('user_id');
  return row?.user_id;
}

export async function insertIdentity(
  db: Q,
  row: { provider: string; subject: string; user_id: string; email: string },
): Promise<void> {
  await db('user_identities').insert(row);
}
