import type { Knex } from 'knex';
import { queryRows } from './query-rows';
import { jobTracing } from './job-tracing';

/**
 * Adding jobs: `enqueue` adds a job with `graphile_worker.add_job` on the caller's knex
 * transaction, so a rollback adds nothing and a crash loses nothing. The inbox (`claimInbox`)
 * makes a retried job's database effect happen once. Workers live in jobs.ts.
 */
export interface EnqueueOptions {
  runAt?: Date;
  /**
   * At most one waiting job with this key per task (e.g. one cover-tint job per fundraiser): the
   * job key `<task>:<singletonKey>`. A second enqueue while one waits keeps the first run time
   * (`preserve_run_at`) and takes the new payload; a job already running is left alone and a new
   * one waits behind it.
   */
  singletonKey?: string;
  /** A raw graphile-worker job key (global across tasks); takes precedence over singletonKey. */
  jobKey?: string;
  /** `replace` (default for jobKey) moves run_at to the new one: a debounce. `preserve_run_at`: a throttle. */
  jobKeyMode?: 'replace' | 'preserve_run_at' | 'unsafe_dedupe';
  maxAttempts?: number;
  /** Jobs of one named queue run one at a time, in order. */
  queueName?: string;
  priority?: number;
}

/** The payload key carrying the W3C traceparent of the request that queued the job. */
export const TRACE_KEY = '_traceparent';

export async function enqueue(
  db: Knex | Knex.Transaction,
  task: string,
  payload: Record<string, unknown>,
  opts: EnqueueOptions = {},
): Promise<void> {
  const key = opts.jobKey ?? (opts.singletonKey ? `${task}:${opts.singletonKey}` : null);
  const mode = opts.jobKeyMode ?? (opts.jobKey ? 'replace' : 'preserve_run_at');
  const traceparent = jobTracing.current();
  const body = traceparent ? { ...payload, [TRACE_KEY]: traceparent } : payload;
  await db.raw(
    `select graphile_worker.add_job(?::text, ?::json, queue_name => ?::text, run_at => ?::timestamptz,
       max_attempts => ?::int, job_key => ?::text, priority => ?::int, job_key_mode => ?::text)`,
    [task, JSON.stringify(body), opts.queueName ?? null, opts.runAt ?? null, opts.maxAttempts ?? 5, key, opts.priority ?? null, key ? mode : null],
  );
}

/** Records `(consumer, message)` in the inbox inside trx; false when it was already handled. */
export async function claimInbox(trx: Knex.Transaction, consumer: string, messageId: string): Promise<boolean> {
  const { rows } = await trx.raw(
    'insert into job_inbox (consumer, message_id) values (?, ?) on conflict do nothing returning 1 as ok',
    [consumer, messageId],
  );
  return rows.length === 1;
}

/**
 * Runs `insert` (an `insert ... returning id` with `?` placeholders, e.g. an outbox row) and, when it inserted a row,
 * adds `task` for it with payload `{ [key]: id }`, in one statement (a data-modifying CTE): the
 * same effect as the insert then `enqueue` with default options, for one round trip. Answers the inserted id, or
 * undefined when the insert inserted nothing (a conflict ignored).
 */
export async function insertAndEnqueue(
  db: Knex | Knex.Transaction,
  insert: { sql: string; bindings: readonly unknown[] },
  task: string,
  key: string,
): Promise<string | undefined> {
  const traceparent = jobTracing.current();
  const rows = await queryRows<{ id: string }>(
    db,
    `with inserted as (${insert.sql}) select inserted.id, graphile_worker.add_job(?::text, (jsonb_build_object(?::text, inserted.id::text) || ?::jsonb)::json, max_attempts => ?::int) from inserted`,
    [...insert.bindings, task, key, JSON.stringify(traceparent ? { [TRACE_KEY]: traceparent } : {}), 5],
  );
  return rows[0]?.id;
}
