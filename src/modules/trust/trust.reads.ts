/**
 * Read-only view for the trust centre's health checks (the module has no table of its own).
 * Foreign tables it reads:
 * - mail_outbox (integrations/mail): whether a queued mail has waited too long (delivery failing);
 * - jobs, in graphile-worker's schema (infra's queue): how long the oldest due job has waited.
 */
import type { Db } from '../../db/knex';

/** A queued mail older than `minutes`, if any. */
export function lateQueuedMail(db: Db, minutes: number): Promise<{ id: string } | undefined> {
  return db('mail_outbox')
    .where({ status: 'queued' })
    .where('created_at', '<', db.raw(`now() - make_interval(mins => ?)`, [minutes]))
    .first('id');
}

/** Minutes the oldest due, unlocked, not dead job has waited past `minutes` (null/undefined: none). */
export function lateJobs(db: Db, minutes: number): Promise<{ late_minutes: number | null } | undefined> {
  return db
    .withSchema('graphile_worker')
    .from('jobs')
    .whereNull('locked_at')
    .whereRaw('attempts < max_attempts')
    .where('run_at', '<', db.raw(`now() - make_interval(mins => ?)`, [minutes]))
    .first(db.raw('extract(epoch from now() - min(run_at))::float8 / 60 as late_minutes'));
}
