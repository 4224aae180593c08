/**
 * Read-only view for the team roster (the module has no table of its own). Foreign table it reads:
 * - users (idp): staff and admins with a public, slugged profile on an active account, and their
 *   public fields; filtered, ordered and capped in one query.
 */
import type { Db } from '../../db/knex';

export const TEAM_MAX = 48;

export interface TeamRow {
  id: string;
  name: string | null;
  slug: string;
  avatar: string | null;
  is_admin: boolean;
}

/**
 * Staff (and admins) with a public, slugged profile on an active account, admins first, then by
 * name.
 */
export function staffWithPublicProfiles(db: Db): Promise<TeamRow[]> {
  return db('users')
    .whereRaw(`roles && '{staff,admin}'::text[]`)
    .where({ status: 'active' })
    .whereRaw('not profile_private')
    .whereNotNull('profile_slug')
    .orderByRaw(`('admin' = any(roles)) desc, lower(name) asc nulls last, id`)
    .limit(TEAM_MAX)
    .select('id', 'name', 'profile_slug as slug', 'avatar', db.raw(`'admin' = any(roles) as is_admin`));
}
