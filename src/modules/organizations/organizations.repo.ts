import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { OrgRole } from '../../http/permissions';

type Q = Db | Knex.Transaction;

export interface OrgRow {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  website: string | null;
  logo: string | null;
  country: string | null;
  parent_id: string | null;
  verified: boolean;
  created_at: Date;
}

export const ORG_COLS = ['id', 'slug', 'name', 'description', 'website', 'logo', 'country', 'parent_id', 'verified', 'created_at'];
const cols = (alias: string) => ORG_COLS.map((c) => `${alias}.${c}`);

/** `%`, `_` and `\` taken literally in an ILIKE pattern. */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

// ---- organizations ----

export async function insertOrg(trx: Knex.Transaction, row: Partial<OrgRow> & { slug: string; name: string; created_by: string }): Promise<OrgRow> {
  const [r] = await trx('organizations').insert(row).returning(ORG_COLS);
  return r;
}

export async function slugExists(db: Q, slug: string): Promise<boolean> {
  return !!(await db('organizations').where({ slug }).first('id'));
}

/** Slugs equal to `base` or `base-<n>`: the free suffix is picked from them. */
export async function slugsLike(db: Q, base: string): Promise<string[]> {
  const rows = await db('organizations').whereRaw(`slug = ? or slug like ? escape '\\'`, [base, `${likeEscape(base)}-%`]).select('slug');
  return rows.map((r: any) => r.slug);
}

export async function byId(db: Q, id: string, opts: { lock?: boolean } = {}): Promise<OrgRow | undefined> {
  const q = db('organizations').where({ id }).first(ORG_COLS);
  if (opts.lock) q.forUpdate();
  return q;
}

/** The platform's verification badge (set by an operator). */
export async function setVerified(db: Q, id: string, verified: boolean): Promise<void> {
  await db('organizations').where({ id }).update({ verified });
}

export async function bySlug(db: Q, slug: string): Promise<OrgRow | undefined> {
  return db('organizations').where({ slug }).first(ORG_COLS);
}

/** The organization named by `slug` and the caller's role in it (null when not a member). */
export async function bySlugWithRole(db: Q, slug: string, userId: string): Promise<(OrgRow & { role: OrgRole | null }) | undefined> {
  return db('organizations as o')
    .leftJoin('org_members as m', function join() {
      this.on('m.org_id', 'o.id').andOnVal('m.user_id', userId);
    })
    .where('o.slug', slug)
    .first([...cols('o'), 'm.role']);
}

export async function list(db: Q, q: string | undefined, limit: number, offset: number): Promise<{ rows: OrgRow[]; total: number }> {
  const base = db('organizations');
  if (q) base.where((w) => w.whereILike('name', `%${likeEscape(q)}%`).orWhereILike('slug', `%${likeEscape(q)}%`));
  const [{ n }] = await base.clone().count<{ n: string }[]>({ n: '*' });
  const rows = await base.orderByRaw('lower(name), id').limit(limit).offset(offset).select(ORG_COLS);
  return { rows, total: Number(n) };
}

export async function update(db: Q, id: string, patch: Partial<OrgRow>): Promise<OrgRow> {
  const [r] = await db('organizations').where({ id }).update({ ...patch, updated_at: db.fn.now() }).returning(ORG_COLS);
  return r;
}

/** The organization and every organization below it (a conglomerate's tree). */
export async function subtreeIds(db: Q, id: string): Promise<string[]> {
  const { rows } = await db.raw(
    `with recursive tree as (select id from organizations where id = ?
       union select o.id from organizations o join tree t on o.parent_id = t.id)
     select id from tree`,
    [id],
  );
  return rows.map((r: any) => r.id);
}

export async function children(db: Q, id: string): Promise<OrgRow[]> {
  return db('organizations').where({ parent_id: id }).orderByRaw('lower(name), id').select(ORG_COLS);
}

// ---- members ----

export async function roleOf(db: Q, orgId: string, userId: string): Promise<OrgRole | null> {
  const r = await db('org_members').where({ org_id: orgId, user_id: userId }).first('role');
  return (r?.role as OrgRole) ?? null;
}

export async function insertMember(db: Q, row: { org_id: string; user_id: string; role: OrgRole; added_by: string | null }): Promise<boolean> {
  const out = await db('org_members').insert(row).onConflict(['org_id', 'user_id']).ignore().returning('user_id');
  return out.length > 0;
}

export async function setRole(db: Q, orgId: string, userId: string, role: OrgRole): Promise<void> {
  await db('org_members').where({ org_id: orgId, user_id: userId }).update({ role, updated_at: db.fn.now() });
}

export async function deleteMember(db: Q, orgId: string, userId: string): Promise<void> {
  await db('org_members').where({ org_id: orgId, user_id: userId }).delete();
}

/** Every membership row of the organization, locked: role changes serialise on them (the last owner stays). */
export async function lockMembers(trx: Knex.Transaction, orgId: string): Promise<Array<{ user_id: string; role: OrgRole }>> {
  return trx('org_members').where({ org_id: orgId }).forUpdate().select('user_id', 'role');
}

/** Memberships of a user with the organizations' rows (accounts the user may manage, campaign creation). */
export async function membershipsOf(db: Q, userId: string): Promise<Array<{ org_id: string; role: OrgRole }>> {
  return db('org_members').where({ user_id: userId }).select('org_id', 'role');
}

/** The organization's first owner: the person who stands for it where one user must be named. */
export async function firstOwner(db: Q, orgId: string): Promise<string | null> {
  const r = await db('org_members').where({ org_id: orgId, role: 'org_owner' }).orderBy([{ column: 'created_at' }, { column: 'user_id' }]).first('user_id');
  return r?.user_id ?? null;
}

// ---- documents ----

export async function insertDocument(
  db: Q,
  row: { id: string; org_id: string; name: string; storage_key: string; content_type: string; bytes: number; is_public: boolean; uploaded_by: string },
) {
  const [r] = await db('org_documents').insert(row).returning(['id', 'name', 'content_type', 'bytes', 'is_public', 'storage_key', 'created_at']);
  return r;
}

export async function documents(db: Q, orgId: string, opts: { publicOnly: boolean; limit: number; offset: number }) {
  const base = db('org_documents').where({ org_id: orgId });
  if (opts.publicOnly) base.where({ is_public: true });
  const [{ n }] = await base.clone().count<{ n: string }[]>({ n: '*' });
  const rows = await base
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(opts.limit)
    .offset(opts.offset)
    .select('id', 'name', 'content_type', 'bytes', 'is_public', 'storage_key', 'created_at');
  return { rows, total: Number(n) };
}

export async function documentById(db: Q, orgId: string, id: string) {
  return db('org_documents').where({ org_id: orgId, id }).first('id', 'name', 'content_type', 'bytes', 'is_public', 'storage_key', 'created_at');
}
