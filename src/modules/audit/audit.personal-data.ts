import type { PersonalDataPart } from '../define-module';

/** Audit entries the account caused: exported; kept on erasure (they carry ids, never personal data). */
export const auditPersonalData: PersonalDataPart = {
  columns: ['audit_log.actor_user_id'],
  async export(db, userId) {
    return { audit_entries: await db('audit_log').where({ actor_user_id: userId }).orWhere({ target_id: userId }).orderBy('created_at').select('action', 'target_type', 'target_id', 'created_at') };
  },
};
