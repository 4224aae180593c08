import type { PersonalDataPart } from '../define-module';

/** Reports filed: exported; on erasure the report stays for moderation without its reporter or free text (the reason is typed too). */
export const reportsPersonalData: PersonalDataPart = {
  columns: ['reports.reporter_user_id'],
  authored: [{ table: 'reports', by: 'reporter_user_id', texts: ['reason', 'details'] }],
  async export(db, userId) {
    return { reports_filed: await db('reports').where({ reporter_user_id: userId }).select('target_type', 'target_id', 'reason', 'details', 'status', 'created_at') };
  },
  async erase(trx, a) {
    await trx('reports').where({ reporter_user_id: a.userId }).update({ reporter_user_id: null, reason: '', details: null });
  },
};
