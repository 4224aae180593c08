import type { Actor, PlatformRole } from './actor';
import { ApiError } from './errors';

/**
 * Every role and permission of the platform, in one place.
 *
 * Platform permissions are named `platform.<role>` (the names the `{ role }` auth rule reports
 * in `required_permission`), plus what the credential itself allows: key management needs the
 * owner's own signed-in session. Organization permissions are the spec's table; they are held
 * per organization, through a membership role.
 */
export const PLATFORM_ROLES = ['user', 'ambassador', 'staff', 'admin'] as const satisfies readonly PlatformRole[];

export const PLATFORM_ROLE_PERMISSIONS: Record<PlatformRole, readonly string[]> = {
  user: ['platform.user'],
  ambassador: ['platform.user', 'platform.ambassador'],
  // Staff review campaigns and act on accounts; admins hold every staff power as well.
  staff: ['platform.user', 'platform.staff'],
  admin: ['platform.user', 'platform.staff', 'platform.admin'],
};

/** Granted by the credential, not the role. */
export const CREDENTIAL_PERMISSIONS = {
  readKeys: 'api_keys.read',
  manageKeys: 'api_keys.manage',
} as const;

export const ORG_ROLES = ['org_viewer', 'org_admin', 'org_owner'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

const ORG_VIEWER = ['org.read', 'org.read_donations', 'org.read_payouts', 'org.read_donors'] as const;
const ORG_ADMIN = [
  ...ORG_VIEWER,
  'org.update_settings',
  'org.manage_members',
  'org.manage_dbas',
  'org.manage_locations',
  'org.upload_documents',
] as const;
const ORG_OWNER = [...ORG_ADMIN, 'org.manage_children', 'org.manage_payouts'] as const;

export type OrgPermission = (typeof ORG_OWNER)[number];

export const ORG_ROLE_PERMISSIONS: Record<OrgRole, readonly OrgPermission[]> = {
  org_viewer: ORG_VIEWER,
  org_admin: ORG_ADMIN,
  org_owner: ORG_OWNER,
};

export function isOrgRole(value: unknown): value is OrgRole {
  return typeof value === 'string' && (ORG_ROLES as readonly string[]).includes(value);
}

/** Platform permissions of a caller: its roles' permissions plus what its credential allows. */
export function permissionsFor(actor: Actor): string[] {
  const out = new Set<string>();
  for (const role of actor.roles) for (const p of PLATFORM_ROLE_PERMISSIONS[role] ?? []) out.add(p);
  out.add('platform.user'); // every account is a user, whatever its stored roles
  out.add(CREDENTIAL_PERMISSIONS.readKeys);
  // Key management needs the holder's own sign-in (cookies or ID token): not a key, not staff viewing as them.
  if (actor.credential !== 'api_key' && !actor.impersonatedBy) out.add(CREDENTIAL_PERMISSIONS.manageKeys);
  return [...out].sort();
}

/** Permissions a membership role grants inside one organization (none without a membership). */
export function orgPermissionsFor(role: OrgRole | null | undefined): OrgPermission[] {
  return role && isOrgRole(role) ? [...ORG_ROLE_PERMISSIONS[role]] : [];
}

/**
 * Role changes never raise anyone above the caller: granting (or changing, or removing) a role
 * needs every permission that role carries. Answers the first one the caller lacks, or null.
 */
export function missingToGrant(callerRole: OrgRole | null | undefined, role: OrgRole): OrgPermission | null {
  const mine = orgPermissionsFor(callerRole);
  return ORG_ROLE_PERMISSIONS[role].find((p) => !mine.includes(p)) ?? null;
}

export function permissionDenied(permission: string): ApiError {
  return new ApiError(403, 'Forbidden', `Requires permission: ${permission}`, { required_permission: permission });
}

export function hasPermission(actor: Actor, permission: string, orgRole?: OrgRole | null): boolean {
  if (permission.startsWith('org.')) return orgPermissionsFor(orgRole).includes(permission as OrgPermission);
  return permissionsFor(actor).includes(permission);
}

/**
 * Throws 403 `{ error, message: 'Requires permission: <name>', required_permission }` unless the
 * caller holds the permission. For `org.*` permissions pass the caller's role in that organization.
 */
export function requirePermission(actor: Actor, permission: string, orgRole?: OrgRole | null): void {
  if (!hasPermission(actor, permission, orgRole)) throw permissionDenied(permission);
}
