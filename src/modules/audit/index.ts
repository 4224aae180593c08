import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

/**
 * The audit log (spec Events 6: update edits, translation saves and regenerations). Written in
 * the transaction of the change it records, so an entry exists exactly when the change does.
 */
export interface AuditEntry {
  actor_user_id: string | null;
  /** Dotted verb, e.g. `update.edited`, `translation.saved`, `translation.regenerated`. */
  action: string;
  target_type: string;
  target_id: string;
  details?: Record<string, unknown>;
}

export async function recordAudit(db: Db | Knex.Transaction, entry: AuditEntry): Promise<void> {
  await db('audit_log').insert({ ...entry, details: JSON.stringify(entry.details ?? {}) });
}
