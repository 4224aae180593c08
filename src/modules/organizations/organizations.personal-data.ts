import type { PersonalDataPart } from '../define-module';

/**
 * Memberships: exported, deleted on erasure. Refused while the account is an organization's only
 * owner. `organizations.created_by`, `org_members.added_by` and `org_documents.uploaded_by`
 * record who acted for the organization; they point at the pseudonymised row and stay.
 */
export const organizationsPersonalData: PersonalDataPart = {
  columns: ['org_members.user_id', 'org_members.added_by', 'organizations.created_by', 'org_documents.uploaded_by'],
  async export(db, userId) {
    return {
      organization_memberships: await db('org_members as m').join('organizations as o', 'o.id', 'm.org_id').where('m.user_id', userId).select('o.id', 'o.slug', 'o.name', 'm.role', 'm.created_at'),
    };
  },
  async erase(trx, a) {
    await trx('org_members').where({ user_id: a.userId }).delete();
  },
  async blockers(ctx, userId) {
    const rows = await ctx.db.raw(
      `select o.slug from org_members m join organizations o on o.id = m.org_id
        where m.user_id = ? and m.role = 'org_owner'
          and not exists (select 1 from org_members x where x.org_id = m.org_id and x.role = 'org_owner' and x.user_id <> m.user_id)`,
      [userId],
    );
    return rows.rows.map((r: { slug: string }) => ({
      code: 'ONLY_ORGANIZATION_OWNER',
      message: `You are the only owner of the organization ${r.slug}: make another member an owner first.`,
    }));
  },
};
