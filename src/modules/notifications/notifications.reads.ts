/**
 * Read-only view for the wording of a notification. Foreign table it reads:
 * - users (idp): the recipient's locale, and whether the recipient exists at all (identity
 *   publishes no read of this private field).
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** An event's payload is data, not a given: a malformed id names nobody (and would fail the uuid cast). */
export const isUuid = (v: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);

/** undefined when there is no such user (a malformed id included). */
export async function userLocale(db: Q, userId: string): Promise<string | null | undefined> {
  if (!isUuid(userId)) return undefined;
  const row = await db('users').where({ id: userId }).first('locale');
  return row ? (row.locale as string | null) : undefined;
}
