import type { PersonalDataPart } from '../define-module';

/** Community memberships: exported, deleted on erasure; refused while the account leads a community with members. */
export const communitiesPersonalData: PersonalDataPart = {
  columns: ['communities.owner_user_id', 'community_members.user_id', 'community_joins.user_id', 'community_withdrawals.user_id', 'community_withdrawal_codes.user_id'],
  async export(db, userId) {
    return {
      community_memberships: await db('community_members').where({ user_id: userId }).select('community_id', 'role', 'status', 'joined_at'),
      communities_owned: await db('communities').where({ owner_user_id: userId }).select('id', 'slug', 'name', 'created_at'),
    };
  },
  async erase(trx, a) {
    await trx('community_withdrawal_codes').where({ user_id: a.userId }).delete();
    // Joins and withdrawals are money records: they stay, keyed by the pseudonymised account.
    await trx('community_members').where({ user_id: a.userId }).update({ status: 'canceled', updated_at: trx.fn.now() });
  },
  async blockers(ctx, userId) {
    const rows = await ctx.db.raw(
      `select c.slug from communities c join community_members m on m.community_id = c.id
        where m.user_id = ? and m.role in ('owner','leader') and m.status = 'active'
          and exists (select 1 from community_members x where x.community_id = c.id and x.user_id <> ? and x.status = 'active')`,
      [userId, userId],
    );
    return rows.rows.map((r: { slug: string }) => ({
      code: 'COMMUNITY_LEADER',
      message: `You lead the community ${r.slug}, which has members: hand it to another member or end it first.`,
    }));
  },
};
