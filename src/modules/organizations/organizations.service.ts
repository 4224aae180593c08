import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError, badRequest } from '../../http/errors';
import { missingToGrant, permissionDenied, type OrgRole } from '../../http/permissions';
import { requireVerifiedEmail } from '../../http/verified-email';
import { plainText } from '../../infra/plain-text';
import { DOCUMENT_MAX_BYTES, documentKey, putDocument, removeDocument } from './documents.storage';
import type { OrgAccess } from './organizations.policy';
import { orgNotFound, requireOrgPermissionById } from './organizations.policy';
import * as people from './organizations.members.reads';
import * as repo from './organizations.repo';
import type { OrgRow } from './organizations.repo';
import { UUID_RE, type CreateOrgBody, type SettingsBody } from './organizations.schemas';

export function publicOrg(o: OrgRow) {
  return {
    id: o.id,
    slug: o.slug,
    name: o.name,
    description: o.description ?? null,
    website: o.website ?? null,
    logo: o.logo ?? null,
    country: o.country ?? null,
    parent_id: o.parent_id ?? null,
    verified: !!o.verified,
    created_at: new Date(o.created_at).toISOString(),
  };
}

export function memberCard(r: any) {
  return {
    user: { id: r.id, name: r.name ?? null, avatar: r.avatar ?? null, profile_slug: r.profile_slug ?? null },
    role: r.role as OrgRole,
    joined_at: new Date(r.joined_at).toISOString(),
  };
}

/** Plain text or null for blank; 400 when the markup is nested too deep to settle. */
function text(field: string, v: string | null | undefined): string | null | undefined {
  if (v === undefined || v === null) return v;
  const t = plainText(v);
  if (t === null) throw badRequest(`${field} is not plain text`, { details: [{ path: `body.${field}`, message: 'not plain text' }] });
  return t === '' ? null : t;
}

function slugBase(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  // Names in other scripts leave nothing; a uuid-shaped slug would read as an id.
  return s && !UUID_RE.test(s) ? s : 'org';
}

async function freeSlug(db: Knex.Transaction, name: string): Promise<string> {
  const base = slugBase(name);
  const taken = new Set(await repo.slugsLike(db, base));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

/** POST /organizations: the organization and its creator's org_owner membership, together. */
export async function createOrganization(ctx: AppContext, actor: Actor, body: CreateOrgBody) {
  requireVerifiedEmail(actor);
  const name = text('name', body.name);
  if (!name) throw badRequest('name must not be blank', { details: [{ path: 'body.name', message: 'must not be blank' }] });
  if (body.parent_id) await requireOrgPermissionById(ctx.db, actor, body.parent_id, 'org.manage_children');
  const fields = {
    name,
    description: text('description', body.description) ?? null,
    website: body.website ?? null,
    logo: body.logo ?? null,
    country: body.country ?? null,
    parent_id: body.parent_id ?? null,
    created_by: actor.userId,
  };
  try {
    return await ctx.db.transaction(async (trx) => {
      if (body.slug && (await repo.slugExists(trx, body.slug))) throw slugTaken(body.slug);
      const org = await repo.insertOrg(trx, { ...fields, slug: body.slug ?? (await freeSlug(trx, name)) });
      await repo.insertMember(trx, { org_id: org.id, user_id: actor.userId, role: 'org_owner', added_by: actor.userId });
      return org;
    });
  } catch (err) {
    // Two registrations raced for one slug: the loser hears the slug is taken.
    if (isUniqueViolation(err)) throw slugTaken(body.slug ?? slugBase(name));
    throw err;
  }
}

const slugTaken = (slug: string) => new ApiError(409, 'Conflict', `The slug ${slug} is taken`, { code: 'SLUG_TAKEN' });

export async function updateSettings(ctx: AppContext, a: OrgAccess, body: SettingsBody): Promise<OrgRow> {
  const patch: Partial<OrgRow> = {};
  if (body.name !== undefined) {
    const name = text('name', body.name);
    if (!name) throw badRequest('name must not be blank', { details: [{ path: 'body.name', message: 'must not be blank' }] });
    patch.name = name;
  }
  if (body.description !== undefined) patch.description = text('description', body.description) ?? null;
  if (body.website !== undefined) patch.website = body.website;
  if (body.logo !== undefined) patch.logo = body.logo;
  if (body.country !== undefined) patch.country = body.country;
  if (!Object.keys(patch).length) return a.org;
  return repo.update(ctx.db, a.org.id, patch);
}

// ---- members ----

function requireGrant(a: OrgAccess, role: OrgRole) {
  const missing = missingToGrant(a.role, role);
  if (missing) throw permissionDenied(missing);
}

const memberNotFound = () => new ApiError(404, 'Not found', 'Member not found');
const lastOwner = () => new ApiError(409, 'Conflict', 'An organization keeps at least one owner', { code: 'LAST_OWNER' });

export async function addMember(ctx: AppContext, a: OrgAccess, body: { email?: string; user_id?: string; role: OrgRole }) {
  requireGrant(a, body.role);
  const user = await people.activeUser(ctx.db, body.user_id ? { id: body.user_id } : { email: body.email });
  if (!user) throw new ApiError(404, 'Not found', 'User not found');
  const added = await repo.insertMember(ctx.db, { org_id: a.org.id, user_id: user.id, role: body.role, added_by: a.actor.userId });
  if (!added) throw new ApiError(409, 'Conflict', 'Already a member; change the role with PATCH', { code: 'ALREADY_MEMBER' });
  return memberCard(await people.member(ctx.db, a.org.id, user.id));
}

/**
 * Changes a member's role, or removes them (`role` null). The caller must be able to grant
 * both the member's current role and the new one, and the last owner stays an owner.
 */
export async function changeMember(ctx: AppContext, a: OrgAccess, userId: string, role: OrgRole | null) {
  await ctx.db.transaction(async (trx) => {
    const rows = await repo.lockMembers(trx, a.org.id);
    const current = rows.find((r) => r.user_id === userId);
    if (!current) throw memberNotFound();
    requireGrant(a, current.role);
    if (role) requireGrant(a, role);
    const owners = rows.filter((r) => r.role === 'org_owner').length;
    if (current.role === 'org_owner' && role !== 'org_owner' && owners <= 1) throw lastOwner();
    if (role) await repo.setRole(trx, a.org.id, userId, role);
    else await repo.deleteMember(trx, a.org.id, userId);
  });
  return role ? memberCard(await people.member(ctx.db, a.org.id, userId)) : undefined;
}

// ---- children ----

/**
 * Puts an organization under this one. The caller needs org.manage_children in both (the
 * child's owners consent by being the caller); a loop (the child above this one) is 409.
 */
export async function addChild(ctx: AppContext, a: OrgAccess, childId: string): Promise<{ org: OrgRow; created: boolean }> {
  if (childId === a.org.id) throw new ApiError(409, 'Conflict', 'An organization cannot be its own child', { code: 'ORG_CYCLE' });
  await requireOrgPermissionById(ctx.db, a.actor, childId, 'org.manage_children');
  return ctx.db.transaction(async (trx) => {
    // Parent links change one at a time, so two concurrent links can never close a loop.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', ['organizations.parent']);
    const child = await repo.byId(trx, childId, { lock: true });
    if (!child) throw orgNotFound();
    if (child.parent_id === a.org.id) return { org: child, created: false };
    if (child.parent_id) throw new ApiError(409, 'Conflict', 'That organization already belongs to another one', { code: 'ALREADY_HAS_PARENT' });
    if ((await repo.subtreeIds(trx, child.id)).includes(a.org.id)) {
      throw new ApiError(409, 'Conflict', 'That organization is above this one', { code: 'ORG_CYCLE' });
    }
    return { org: await repo.update(trx, child.id, { parent_id: a.org.id }), created: true };
  });
}

// ---- documents ----

/** The request body's bytes, refused past the cap while they arrive (never buffered whole). */
async function readBody(req: Request, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      req.unpipe?.();
      throw new ApiError(413, 'Payload too large', `A document is at most ${max / (1024 * 1024)} MB`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function uploadDocument(ctx: AppContext, a: OrgAccess, req: Request, meta: { name: string; is_public: 'true' | 'false' }) {
  const name = text('name', meta.name);
  if (!name) throw badRequest('name must not be blank', { details: [{ path: 'query.name', message: 'must not be blank' }] });
  const bytes = await readBody(req, DOCUMENT_MAX_BYTES);
  // The type comes from the bytes, never from the header alone.
  if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') throw badRequest('The document must be a PDF file', { code: 'UNSUPPORTED_DOCUMENT' });
  const id = randomUUID();
  const key = documentKey(a.org.id);
  await putDocument(ctx, key, bytes);
  try {
    return await repo.insertDocument(ctx.db, {
      id,
      org_id: a.org.id,
      name,
      storage_key: key,
      content_type: 'application/pdf',
      bytes: bytes.length,
      is_public: meta.is_public === 'true',
      uploaded_by: a.actor.userId,
    });
  } catch (err) {
    await removeDocument(ctx, key).catch(() => undefined);
    throw err;
  }
}

export function documentOut(d: any, org: Pick<OrgRow, 'id'>) {
  return {
    id: d.id,
    name: d.name,
    content_type: d.content_type,
    bytes: Number(d.bytes),
    is_public: !!d.is_public,
    url: d.is_public ? `/api/v1/organizations/${org.id}/documents/${d.id}` : null,
    created_at: new Date(d.created_at).toISOString(),
  };
}
