/**
 * Public face of organizations: finding one, checking a caller's org permission (campaign
 * creation, payout onboarding), and the person who stands for an organization where one user
 * must be named (the `donation.paid` holder). Route tables are collected by src/modules/index.ts.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { firstOwner } from './organizations.repo';

export type { OrgRow } from './organizations.repo';
export { findOrganization, orgNotFound, orgsWherePermitted, requireOrgPermissionById } from './organizations.policy';

/** The organization's first owner (null for an organization without one, which the member rules never leave). */
export function organizationHolderUserId(db: Db | Knex.Transaction, orgId: string): Promise<string | null> {
  return firstOwner(db, orgId);
}
