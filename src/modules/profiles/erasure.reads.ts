import type { Knex } from 'knex';

/**
 * Whether the account has asked to be erased and is in its grace period (privacy owns
 * privacy_erasures): from the request on, its profile answers 404 to everyone else.
 */
export async function erasurePending(db: Knex, userId: string): Promise<boolean> {
  const row = await db('privacy_erasures').where({ user_id: userId, status: 'scheduled' }).first('id');
  return !!row;
}
