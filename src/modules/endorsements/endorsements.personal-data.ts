import type { PersonalDataPart } from '../define-module';

/** Endorsements given and requests sent: exported, deleted on erasure. */
export const endorsementsPersonalData: PersonalDataPart = {
  columns: ['endorsements.user_id', 'endorsement_requests.requested_by', 'endorsement_requests.email'],
  authored: [{ table: 'endorsements', by: 'user_id', texts: ['message'] }],
  async export(db, userId) {
    return {
      endorsements: await db('endorsements').where({ user_id: userId }).select('fundraiser_id', 'message', 'created_at'),
      endorsement_requests: await db('endorsement_requests').where({ requested_by: userId }).select('fundraiser_id', 'email', 'created_at'),
    };
  },
  async erase(trx, a) {
    await trx('endorsements').where({ user_id: a.userId }).delete();
    await trx('endorsement_requests').where({ requested_by: a.userId }).orWhereRaw('lower(email) = lower(?)', [a.email]).delete();
  },
};
