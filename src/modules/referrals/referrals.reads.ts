/**
 * Read-only view for attributing clicks and gifts. Foreign tables it reads:
 * - users (idp): the active account a profile-slug ref names, and an account's address (to tell
 *   a guest donor who used their own link); identity publishes neither read;
 * - endorsements (endorsements): whether the referrer endorses the campaign.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** The user a profile-slug ref names (active accounts only). */
export async function userIdBySlug(db: Q, slug: string): Promise<string | null> {
  const row = await db('users').where({ profile_slug: slug.toLowerCase(), status: 'active' }).first('id');
  return row?.id ?? null;
}

/** The account's address (to tell a guest donor who used their own link). */
export async function userEmail(db: Q, userId: string): Promise<string | null> {
  const row = await db('users').where({ id: userId }).first('email');
  return row?.email ?? null;
}

/** Whether the referrer endorses the campaign (their link counts as an endorser's link). */
export async function endorses(db: Q, userId: string, fundraiserId: string): Promise<boolean> {
  const row = await db('endorsements').where({ user_id: userId, fundraiser_id: fundraiserId }).first('user_id');
  return Boolean(row);
}
