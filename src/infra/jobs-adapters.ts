import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, type CronItem, type WorkerEvents } from 'graphile-worker';
import type { Logger } from './logger';
import { recordJob } from './metrics';

// graphile-worker's own interfaces, spoken in this service's terms: its log lines through pino,
// its job events into the metrics, a crontab entry as it wants one.

export interface CronEntry {
  /** Crontab time pattern, UTC: `*\/10 * * * *`. */
  match: string;
  task: string;
  payload?: Record<string, unknown>;
  /** Catch up a missed run that was due within this many seconds (e.g. after a deploy). */
  backfillSeconds?: number;
}

export const quietLogger = new WorkerLogger(() => () => undefined);

/**
 * graphile-worker warns when its pool is smaller than its concurrency, assuming jobs run their work
 * on that pool. Here they run it on the app's pool; behind a pooler the engine's own pool is kept
 * to a listener and its bookkeeping on purpose (jobs.ts getPool), so the advice does not apply.
 */
const NOT_FOR_US = /^(WARNING: )?having maxPoolSize \(\d+\) smaller than concurrency/;

export function workerLogger(log: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const fields = { ...scope, ...(meta ?? {}) };
    if (level === 'error') log.warn(fields, `jobs: ${message}`);
    else if (level === 'warning' && NOT_FOR_US.test(message)) log.debug(fields, `jobs: ${message}`);
    else if (level === 'warning') log.warn(fields, `jobs: ${message}`);
    else if (level === 'info') log.info(fields, `jobs: ${message}`);
    else log.debug(fields, `jobs: ${message}`);
  });
}

/** Worker events feeding jobs_processed_total. */
export function countingEvents(): WorkerEvents {
  const events: WorkerEvents = new EventEmitter();
  events.on('job:success', ({ job }) => recordJob(job.task_identifier, 'succeeded'));
  events.on('job:error', ({ job }) => recordJob(job.task_identifier, 'failed'));
  return events;
}

export function toCronItem(e: CronEntry): CronItem {
  return {
    task: e.task,
    match: e.match,
    identifier: `${e.task}@${e.match}`,
    payload: e.payload ?? {},
    options: { backfillPeriod: (e.backfillSeconds ?? 0) * 1000, maxAttempts: 3, jobKey: `cron:${e.task}`, jobKeyMode: 'replace' },
  };
}
