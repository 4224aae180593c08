/**
 * Read-only view for search (the module has no table of its own). Foreign tables it reads:
 * - users (idp): people by name or profile slug, with their public fields;
 * - organizations (organizations): organizations by name or slug, with their public fields;
 * - donations (donations), fundraisers (fundraisers), donor_keys (leaderboard): guest donors by
 *   the name on their named gifts to public campaigns, keyed like their public donor page.
 * Each is one query, because the match, its order and its paging must apply together.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** `%q%` for LIKE with q's own % _ \ taken literally. */
const contains = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const startsWith = (q: string) => `${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface UserHit {
  id: string;
  name: string | null;
  slug: string | null;
  avatar: string | null;
}

/**
 * People by name or profile slug: active accounts with a public profile only (a private profile
 * is never listed). Name-prefix matches first. The predicate is the trigram indexes' (migration
 * 20261123130000).
 */
export async function users(db: Q, q: string, limit: number, offset: number): Promise<UserHit[]> {
  return db('users')
    .where({ status: 'active' })
    .whereRaw('not profile_private')
    .where((w) => w.whereRaw(`lower(name) like ? escape '\\'`, [contains(q)]).orWhereRaw(`profile_slug like ? escape '\\'`, [contains(q)]))
    .orderByRaw(`(lower(name) like ? escape '\\') desc, lower(name) asc nulls last, id`, [startsWith(q)])
    .limit(limit)
    .offset(offset)
    .select('id', 'name', 'profile_slug as slug', 'avatar');
}

export interface OrgHit {
  id: string;
  slug: string;
  name: string;
  logo: string | null;
  verified: boolean;
}

let orgsTable: boolean | null = null;

/** Whether the organizations table exists yet (organizations arrive with their own migration). */
async function hasOrganizations(db: Q): Promise<boolean> {
  if (orgsTable) return true;
  const { rows } = await db.raw(`select to_regclass('public.organizations') is not null as present`);
  orgsTable = Boolean(rows[0]?.present);
  return orgsTable;
}

/** Organizations by name or slug, name-prefix matches first; [] while organizations do not exist. */
export async function orgs(db: Q, q: string, limit: number, offset: number): Promise<OrgHit[]> {
  if (!(await hasOrganizations(db))) return [];
  return db('organizations')
    .where((w) => w.whereRaw(`lower(name) like ? escape '\\'`, [contains(q)]).orWhereRaw(`slug like ? escape '\\'`, [contains(q)]))
    .orderByRaw(`(lower(name) like ? escape '\\') desc, lower(name) asc, id`, [startsWith(q)])
    .limit(limit)
    .offset(offset)
    .select('id', 'slug', 'name', 'logo', 'verified');
}

export interface DonorHit {
  kind: 'guest';
  key: string;
  name: string;
}

/**
 * Guest donors (gifts without an account) by the name on their named gifts to public campaigns,
 * keyed like their public donor page (`GET /donors/guest/{key}`, donor_keys of the leaderboard
 * module). Anonymous gifts are never searched, and signed-in donors are found as people instead.
 * The latest name a donor gave under is shown; most recent givers first.
 */
/** At most this many matching gifts are grouped into donors (see guestDonors). */
const MATCH_CAP = 5000;

export async function guestDonors(db: Q, q: string, limit: number): Promise<DonorHit[]> {
  const { rows } = await db.raw(
    `with matched as materialized (
       -- The trigram index finds the matching gifts; a name shared by very many gifts stops at
       -- MATCH_CAP of them, so one common name never turns into a scan of every gift.
       select d.donor_name, d.donor_email, d.paid_at, d.fundraiser_id from donations d
        where d.status = 'paid' and not d.anonymous and d.donor_user_id is null and d.donor_name is not null
          and lower(d.donor_name) like ? escape '\\'
        limit ?)
     select k.key, (array_agg(m.donor_name order by m.paid_at desc))[1] as name
       from matched m
       join fundraisers f on f.id = m.fundraiser_id and f.visibility = 'public' and f.deleted_at is null
       join donor_keys k on k.kind = 'guest' and k.identity = lower(m.donor_email)
      group by k.key
      order by max(m.paid_at) desc, k.key
      limit ?`,
    [contains(q), MATCH_CAP, limit],
  );
  return rows.map((r: { key: string; name: string }) => ({ kind: 'guest' as const, key: r.key, name: r.name }));
}
