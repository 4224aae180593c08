import type { Knex } from 'knex';

/**
 * The named secret kept in app_secrets: stored once (the first caller's `fresh` value wins, a
 * concurrent one finds it), so every replica and restart uses the same. Answers the stored value.
 */
export async function keptSecret(db: Knex, name: string, fresh: () => string): Promise<string> {
  await db('app_secrets').insert({ name, value: fresh() }).onConflict('name').ignore();
  const row = await db('app_secrets').where({ name }).first('value');
  return String(row.value);
}
