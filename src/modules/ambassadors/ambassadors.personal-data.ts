import type { PersonalDataPart } from '../define-module';

/** Ambassador applications: exported; deleted on erasure. */
export const ambassadorsPersonalData: PersonalDataPart = {
  columns: ['ambassador_applications.user_id', 'ambassador_applications.email'],
  authored: [{ table: 'ambassador_applications', by: 'user_id', identifiers: ['name', 'email', 'links'], texts: ['message'] }],
  async export(db, userId) {
    return { ambassador_applications: await db('ambassador_applications').where({ user_id: userId }).select('name', 'email', 'message', 'links', 'status', 'created_at') };
  },
  async erase(trx, a) {
    await trx('ambassador_applications').where({ user_id: a.userId }).orWhereRaw('lower(email) = lower(?)', [a.email]).delete();
  },
};
