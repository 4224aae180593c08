/**
 * Public face of organizations: finding one, checking a caller's org permission (campaign
 * creation, payout onboarding), and the person who stands for an organization where one user
 * must be named (the `donation.paid` holder). Route tables are collected by src/modules/index.ts.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { findOrganization } from './organizations.policy';
import { firstOwner, setVerified } from './organizations.repo';

export type { OrgRow } from './organizations.repo';
export { findOrganization, orgAccess, orgNotFound, orgPermission, orgsWherePermitted, requireOrgPermissionById } from './organizations.policy';
// For org-admin routes that live in the module owning their data (payouts' org payouts read).
export { ADMIN_DOC as ORG_ADMIN_DOC } from './org-admin.shared';
export { pageQuery as orgAdminPageQuery, slugParams as orgSlugParams } from './organizations.schemas';

/** The organization's first owner (null for an organization without one, which the member rules never leave). */
export function organizationHolderUserId(db: Db | Knex.Transaction, orgId: string): Promise<string | null> {
  return firstOwner(db, orgId);
}

/** Sets the platform's verified badge (operator CLI `verify-org`); answers the organization, or undefined when none has that id or slug. */
export async function setOrganizationVerified(db: Db, idOrSlug: string, verified: boolean) {
  const org = await findOrganization(db, idOrSlug);
  if (org) await setVerified(db, org.id, verified);
  return org ? { ...org, verified } : undefined;
}

/** Whether an organization with this id exists (follows check it before following). */
export async function organizationExists(db: Db, id: string): Promise<boolean> {
  return !!(await findOrganization(db, id));
}
