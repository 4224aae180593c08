import { failedJobs, jobCounts, retryJob } from '../jobs/admin';
import { CliError, oneOf, UsageError, type Command } from './command';

const SUB = ['failed', 'retry'] as const;
const pad = (s: string | number, n: number) => String(s).padEnd(n);

/** The job queue (graphile-worker) as the person on call sees it. */
export const jobsCommands: Record<string, Command> = {
  jobs: {
    usage: '[failed [count] | retry <id>]',
    summary: 'job counts by task (waiting, scheduled, running, failed); `failed` lists failed jobs; `retry <id>` runs one again',
    check([sub, arg]) {
      if (sub === undefined) return;
      oneOf('jobs subcommand', sub, SUB);
      if (sub === 'retry' && !/^\d+$/.test(arg ?? '')) throw new UsageError('jobs retry: give the numeric id `jobs failed` shows');
      if (sub === 'failed' && arg !== undefined && !/^\d+$/.test(arg)) throw new UsageError('jobs failed: count must be a whole number');
    },
    async run(db, [sub, arg]) {
      if (sub === 'retry') {
        if (!(await retryJob(db, arg!))) throw new CliError(`jobs retry: no failed job ${arg} (see jobs failed)`);
        return `job ${arg} is due again (attempts reset)`;
      }
      if (sub === 'failed') {
        const rows = await failedJobs(db, Math.min(500, Number(arg ?? 50)));
        if (rows.length === 0) return 'no failed jobs';
        return [
          `${rows.length} failed job(s), newest first (retry with: jobs retry <id>)`,
          ...rows.map((r) => {
            const err = (r.last_error ?? '').split('\n')[0]!.slice(0, 160);
            return `${pad(r.id, 8)} ${pad(r.task, 32)} attempts ${r.attempts}/${r.max_attempts}  ${new Date(r.updated_at).toISOString()}  ${err}`;
          }),
        ].join('\n');
      }
      const rows = await jobCounts(db);
      if (rows.length === 0) return 'no jobs (none waiting, running or failed)';
      const total = (k: 'waiting' | 'scheduled' | 'running' | 'failed') => rows.reduce((s, r) => s + r[k], 0);
      return [
        `${pad('task', 36)} ${pad('waiting', 8)} ${pad('scheduled', 10)} ${pad('running', 8)} ${pad('failed', 7)} oldest waiting`,
        ...rows.map((r) => `${pad(r.task, 36)} ${pad(r.waiting, 8)} ${pad(r.scheduled, 10)} ${pad(r.running, 8)} ${pad(r.failed, 7)} ${r.waiting ? `${Math.round(r.oldest_waiting_seconds)} s` : '-'}`),
        `${pad('total', 36)} ${pad(total('waiting'), 8)} ${pad(total('scheduled'), 10)} ${pad(total('running'), 8)} ${pad(total('failed'), 7)}`,
      ].join('\n');
    },
  },
};
