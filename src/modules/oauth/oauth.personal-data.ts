import type { PersonalDataPart } from '../define-module';

/** Linked social sign-ins: exported without tokens, deleted on erasure. */
export const oauthPersonalData: PersonalDataPart = {
  columns: ['user_identities.user_id', 'user_identities.email'],
  authored: [{ table: 'user_identities', by: 'user_id', identifiers: ['email', 'subject'] }],
  async export(db, userId) {
    return { identities: await db('user_identities').where({ user_id: userId }).select('provider', 'email', 'created_at') };
  },
  async erase(trx, a) {
    await trx('user_identities').where({ user_id: a.userId }).delete();
  },
};
