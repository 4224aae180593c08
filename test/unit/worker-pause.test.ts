import { createDb } from '../../src/db/knex';
import type { Logger } from '../../src/infra/logger';
import { JobWorker } from '../../src/infra/queue';

// Issue 16: while the database is away the job worker pauses (one log line, a growing delay)
// instead of failing every poll. (src/infra/queue.ts; drop with it if the queue is replaced.)

test('when the database is unreachable, then the worker logs one pause line and backs off instead of spinning', async () => {
  const db = createDb('postgres://postgres@127.0.0.1:1/none', { max: 1, acquireTimeoutMs: 500 });
  const lines: Array<{ level: string; msg: string }> = [];
  const record = (level: string) => (...args: unknown[]) => lines.push({ level, msg: String(args.find((a) => typeof a === 'string')) });
  const log = { info: record('info'), warn: record('warn'), error: record('error'), debug: record('debug') } as unknown as Logger;
  const worker = new JobWorker(db, log, 50).register('noop', async () => undefined);
  try {
    worker.start();
    await new Promise((r) => setTimeout(r, 2_500));
  } finally {
    await worker.stop();
    await db.destroy();
  }
  // At a 50 ms poll the old loop logged ~50 errors here; paused, it tries at 0, 1 s and 2 s.
  expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  expect(lines.filter((l) => l.level === 'warn')).toEqual([{ level: 'warn', msg: 'job worker paused: the database is unavailable' }]);
});
