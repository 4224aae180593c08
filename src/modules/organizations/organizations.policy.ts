import type { Request } from 'express';
import type { Db } from '../../db/knex';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';
import { hasPermission, requirePermission, type OrgPermission, type OrgRole } from '../../http/permissions';
import { policyResult, type SignedInPolicy } from '../../http/policy-result';
import * as repo from './organizations.repo';
import type { OrgRow } from './organizations.repo';
import { ORG_SLUG, UUID_RE } from './organizations.schemas';

export const orgNotFound = () => new ApiError(404, 'Not found', 'Organization not found');

export interface OrgAccess {
  org: OrgRow;
  role: OrgRole | null;
  actor: Actor;
  /** Whether the caller holds another permission in this organization (e.g. org.read_donors on a donations read). */
  can(permission: OrgPermission): boolean;
}

const access = policyResult<OrgAccess>('orgPermission');

/**
 * Org-admin routes: resolves `{slug}` and checks one organization permission through the
 * permissions module. A malformed or unknown slug is 404 `Organization not found` before any
 * permission is looked at, so a 403 only ever speaks of an organization that exists.
 */
export function orgPermission(permission: OrgPermission): SignedInPolicy<{ slug: string }> {
  return {
    describe: `the caller holds ${permission} in the organization (unknown or malformed slug 404 Organization not found; otherwise 403 Requires permission: ${permission})`,
    async check({ req, ctx, actor, params }) {
      if (!ORG_SLUG.test(params.slug)) throw orgNotFound();
      const row = await repo.bySlugWithRole(ctx.db, params.slug, actor.userId);
      if (!row) throw orgNotFound();
      const { role, ...org } = row;
      requirePermission(actor, permission, role);
      access.set(req, { org, role, actor, can: (p) => hasPermission(actor, p, role) });
    },
  };
}

/** What `orgPermission` resolved for this request. */
export const orgAccess = (req: Request): OrgAccess => access.get(req);

/** An organization by uuid or slug (public reads); anything unknown 404. */
export async function findOrganization(db: Db, idOrSlug: string): Promise<OrgRow | undefined> {
  if (UUID_RE.test(idOrSlug)) return repo.byId(db, idOrSlug.toLowerCase());
  return ORG_SLUG.test(idOrSlug) ? repo.bySlug(db, idOrSlug) : undefined;
}

export async function requireOrganization(db: Db, idOrSlug: string): Promise<OrgRow> {
  const org = await findOrganization(db, idOrSlug);
  if (!org) throw orgNotFound();
  return org;
}

/**
 * A permission in an organization named by id in a request body (campaign creation, payout
 * onboarding, a new child): unknown 404 `Organization not found`, else 403 `Requires permission`.
 */
export async function requireOrgPermissionById(db: Db, actor: Actor, orgId: string, permission: OrgPermission): Promise<OrgRow> {
  const org = await repo.byId(db, orgId);
  if (!org) throw orgNotFound();
  requirePermission(actor, permission, await repo.roleOf(db, org.id, actor.userId));
  return org;
}

/** Organization ids where the user holds `permission` (accounts they may manage, ...). */
export async function orgsWherePermitted(db: Db, actor: Actor, permission: OrgPermission): Promise<string[]> {
  const rows = await repo.membershipsOf(db, actor.userId);
  return rows.filter((m) => hasPermission(actor, permission, m.role)).map((m) => m.org_id);
}
