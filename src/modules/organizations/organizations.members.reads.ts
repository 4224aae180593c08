/**
 * Read-only view of people for an organization's member pages and member lookup. Foreign table
 * it reads:
 * - users (idp): each member's public card (name, avatar, profile slug) and account status, and
 *   the lookup by exact email or public name; joined with org_members (this module's own table)
 *   so that filtering, ordering and paging stay one query.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { likeEscape } from './organizations.repo';

type Q = Db | Knex.Transaction;

const MEMBER_CARD = ['u.id', 'u.name', 'u.avatar', 'u.profile_slug'];

/** Members, for org admin; `publicOnly` (the public read) leaves out private profiles and inactive accounts. */
export async function members(db: Q, orgId: string, limit: number, offset: number, opts: { publicOnly?: boolean } = {}) {
  const base = db('org_members as m').join('users as u', 'u.id', 'm.user_id').where('m.org_id', orgId);
  if (opts.publicOnly) base.where({ 'u.profile_private': false, 'u.status': 'active' });
  const [{ n }] = await base.clone().count<{ n: string }[]>({ n: '*' });
  const rows = await base
    // Owners first, then admins, then viewers; oldest membership first within a role.
    .orderByRaw(`case m.role when 'org_owner' then 0 when 'org_admin' then 1 else 2 end, m.created_at, m.user_id`)
    .limit(limit)
    .offset(offset)
    .select([...MEMBER_CARD, 'm.role', 'm.created_at as joined_at']);
  return { rows, total: Number(n) };
}

export async function member(db: Q, orgId: string, userId: string) {
  return db('org_members as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where({ 'm.org_id': orgId, 'm.user_id': userId })
    .first([...MEMBER_CARD, 'm.role', 'm.created_at as joined_at']);
}

/** An active account by id or exact (case-insensitive) email. */
export async function activeUser(db: Q, by: { id?: string; email?: string }) {
  const q = db('users').where({ status: 'active' });
  if (by.id) q.where({ id: by.id });
  else q.whereRaw('lower(email) = lower(?)', [by.email ?? '']);
  return q.first('id', 'name', 'avatar', 'profile_slug');
}

/**
 * Member lookup: an exact email, or a name / profile-slug match among public, active profiles
 * (so the lookup never confirms a private profile's name), with each one's role here if any.
 */
export async function searchUsers(db: Q, orgId: string, q: string, limit: number) {
  const pattern = `%${likeEscape(q)}%`;
  return db('users as u')
    .leftJoin('org_members as m', function join() {
      this.on('m.user_id', 'u.id').andOnVal('m.org_id', orgId);
    })
    .where('u.status', 'active')
    .where((w) =>
      w
        .whereRaw('lower(u.email) = lower(?)', [q])
        .orWhere((p) => p.where('u.profile_private', false).where((n) => n.whereILike('u.name', pattern).orWhereILike('u.profile_slug', pattern))),
    )
    .orderByRaw('(lower(u.email) = lower(?)) desc, lower(u.name), u.id', [q])
    .limit(limit)
    .select([...MEMBER_CARD, 'm.role']);
}
