import type { PersonalDataPart } from '../define-module';

/** API keys: exported without their hashes; revoked when erasure is requested, deleted when it runs. */
export const apiKeysPersonalData: PersonalDataPart = {
  columns: ['api_keys.user_id'],
  authored: [{ table: 'api_keys', by: 'user_id', texts: ['name'] }],
  async export(db, userId) {
    return { api_keys: await db('api_keys').where({ user_id: userId }).select('id', 'name', 'prefix', 'scopes', 'last_used_at', 'expires_at', 'revoked_at', 'created_at') };
  },
  async erase(trx, a) {
    await trx('api_keys').where({ user_id: a.userId }).delete();
  },
};
