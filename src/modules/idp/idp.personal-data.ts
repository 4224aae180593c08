import type { PersonalDataPart } from '../define-module';

/**
 * The account itself. Erasure keeps the users row (gifts and ledger entries point at it) but
 * pseudonymises it: no name, email, avatar, bio, slug or contact remains, and every token issued
 * before is cut off. The identity provider's own account goes after commit (privacy module).
 */
export const idpPersonalData: PersonalDataPart = {
  columns: ['users.email', 'users.private_contact_email', 'refresh_token_owners.user_id', 'ambassador_invites.used_by', 'ambassador_invites.email'],
  authored: [{ table: 'users', by: 'id', identifiers: ['email', 'name', 'profile_slug', 'private_contact_email', 'idp_subject'], texts: ['bio'] }],
  async export(db, userId) {
    const account = await db('users')
      .where({ id: userId })
      .first('id', 'email', 'name', 'avatar', 'bio', 'profile_slug', 'profile_private', 'locale', 'roles', 'status',
        'email_verified', 'email_verified_at', 'private_contact_email', 'private_contact_verified_at', 'created_at', 'updated_at');
    const sessions = await db('refresh_token_owners').where({ user_id: userId }).select('created_at', 'expires_at');
    return { account, sessions };
  },
  async erase(trx, a) {
    await trx('refresh_token_owners').where({ user_id: a.userId }).delete();
    await trx('ambassador_invites').whereRaw('lower(email) = lower(?)', [a.email]).update({ email: null });
    await trx('users').where({ id: a.userId }).update({
      email: `erased-${a.userId}@erased.invalid`,
      name: null, avatar: null, bio: null, profile_slug: null, private_contact_email: null, private_contact_verified_at: null,
      email_verified: false, email_verified_at: null, idp_subject: null, profile_private: true, status: 'deactivated',
      tokens_valid_after: trx.fn.now(), updated_at: trx.fn.now(),
    });
  },
};
