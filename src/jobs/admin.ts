import type { Knex } from 'knex';

/** Operator views of graphile-worker's jobs (CLI `jobs`, metrics, tests). */
export interface TaskCounts {
  task: string;
  waiting: number;
  scheduled: number;
  running: number;
  failed: number;
  oldest_waiting_seconds: number;
}

const JOBS = 'graphile_worker.jobs';

/** Per task: due and waiting, scheduled for later, running (locked), permanently failed. */
export async function jobCounts(db: Knex): Promise<TaskCounts[]> {
  const { rows } = await db.raw(`
    select task_identifier as task,
           count(*) filter (where locked_at is null and attempts < max_attempts and run_at <= now())::int as waiting,
           count(*) filter (where locked_at is null and attempts < max_attempts and run_at > now())::int as scheduled,
           count(*) filter (where locked_at is not null)::int as running,
           count(*) filter (where locked_at is null and attempts >= max_attempts)::int as failed,
           coalesce(extract(epoch from now() - min(run_at) filter (where locked_at is null and attempts < max_attempts and run_at <= now())), 0)::float8 as oldest_waiting_seconds
      from ${JOBS} group by task_identifier order by task_identifier`);
  return rows;
}

export interface FailedJob {
  id: string;
  task: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  key: string | null;
  updated_at: Date;
}

export async function failedJobs(db: Knex, limit = 50): Promise<FailedJob[]> {
  const { rows } = await db.raw(
    `select id::text, task_identifier as task, attempts, max_attempts, last_error, key, updated_at
       from ${JOBS} where locked_at is null and attempts >= max_attempts order by updated_at desc limit ?`,
    [limit],
  );
  return rows;
}

/** Gives a failed job its attempts back and makes it due now; false when no such failed job. */
export async function retryJob(db: Knex, id: string): Promise<boolean> {
  const { rows } = await db.raw(
    `update graphile_worker._private_jobs set attempts = 0, max_attempts = greatest(max_attempts, 1), run_at = now(), last_error = null
      where id = ?::bigint and locked_at is null and attempts >= max_attempts returning id`,
    [id],
  );
  return rows.length === 1;
}

/** Jobs of a task not yet run (waiting or scheduled), optionally by job key; tests look at what was queued. */
export async function pendingJobs(db: Knex, task: string, key?: string): Promise<Array<{ id: string; key: string | null; run_at: Date; payload: Record<string, unknown>; attempts: number; max_attempts: number; last_error: string | null }>> {
  const { rows } = await db.raw(
    `select j.id::text as id, j.key, j.run_at, j.payload, j.attempts, j.max_attempts, j.last_error
       from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = ? and j.attempts < j.max_attempts and (?::text is null or j.key = ?) order by j.id`,
    [task, key ?? null, key ?? null],
  );
  return rows;
}

/** Makes a task's scheduled jobs due now (tests skipping a backoff or a debounce). */
export async function makeDue(db: Knex, task: string): Promise<number> {
  const { rowCount } = await db.raw(
    `update graphile_worker._private_jobs j set run_at = now() from graphile_worker._private_tasks t
      where t.id = j.task_id and t.identifier = ? and j.locked_at is null and j.run_at > now()`,
    [task],
  );
  return rowCount ?? 0;
}
