import type { Knex } from 'knex';

/**
 * Housekeeping of the job machinery (graphile-worker's tables and the inbox), for the periodic
 * prune task: each answers how many rows it removed.
 */

/** Permanently failed jobs, once operators have had `days` to inspect them (`jobs failed`). Finished jobs leave as they complete. */
export async function pruneFailedJobs(db: Knex, days: number): Promise<number> {
  const r = await db.raw(
    `delete from graphile_worker._private_jobs where attempts >= max_attempts and locked_at is null
      and updated_at < now() - make_interval(days => ?)`,
    [days],
  );
  return r.rowCount ?? 0;
}

/** Named queues no job refers to any more. */
export async function pruneIdleJobQueues(db: Knex): Promise<number> {
  const r = await db.raw(`delete from graphile_worker._private_job_queues q where locked_at is null
    and not exists (select 1 from graphile_worker._private_jobs j where j.job_queue_id = q.id)`);
  return r.rowCount ?? 0;
}

/** Inbox records of messages handled over `days` ago (no retry of them can still arrive). */
export async function pruneJobInbox(db: Knex, days: number): Promise<number> {
  const r = await db.raw('delete from job_inbox where handled_at < now() - make_interval(days => ?)', [days]);
  return r.rowCount ?? 0;
}
