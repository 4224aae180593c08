import type { Knex } from 'knex';

type Q = Knex | Knex.Transaction;

/** The public-profile columns of an account (identity owns the users table; profiles read it here). */
export interface ProfileRow {
  id: string;
  profile_slug: string | null;
  name: string | null;
  avatar: string | null;
  bio: string | null;
  profile_private: boolean;
  roles: string[];
  status: string;
  email_verified_at: Date | null;
  created_at: Date;
}

const COLS = ['id', 'profile_slug', 'name', 'avatar', 'bio', 'profile_private', 'roles', 'status', 'email_verified_at', 'created_at'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An account by uuid or by profile slug (slugs are stored lower-case). */
export function findProfile(db: Q, idOrSlug: string): Promise<ProfileRow | undefined> {
  const q = db('users').first(COLS);
  return UUID.test(idOrSlug) ? q.where({ id: idOrSlug.toLowerCase() }) : q.where({ profile_slug: idOrSlug.toLowerCase() });
}

/** Who holds `slug`, if anyone. */
export async function slugHolder(db: Q, slug: string): Promise<string | undefined> {
  return (await db('users').where({ profile_slug: slug }).first('id'))?.id;
}

export interface ProfilePatch {
  name?: string | null;
  profile_slug?: string;
  bio?: string | null;
  avatar?: string | null;
  profile_private?: boolean;
}

export async function updateProfile(db: Q, userId: string, patch: ProfilePatch): Promise<ProfileRow | undefined> {
  if (Object.keys(patch).length === 0) return findProfile(db, userId);
  const [row] = await db('users').where({ id: userId }).update({ ...patch, updated_at: db.fn.now() }).returning(COLS);
  return row;
}
