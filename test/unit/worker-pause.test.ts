import { createDb } from '../../src/db/knex';
import { JobWorker } from '../../src/infra/jobs';
import type { Logger } from '../../src/infra/logger';

// While the database is away the job worker pauses (a growing delay between attempts)
// instead of failing every poll or crashing.

test('when the database is unreachable, then the worker backs off instead of spinning, and never logs an error', async () => {
  const db = createDb('postgres://postgres@127.0.0.1:1/none', { max: 1, acquireTimeoutMs: 500 });
  const lines: Array<{ level: string; msg: string }> = [];
  const record = (level: string) => (...args: unknown[]) => lines.push({ level, msg: String(args.find((a) => typeof a === 'string')) });
  const log = { info: record('info'), warn: record('warn'), error: record('error'), debug: record('debug'), child: () => log } as unknown as Logger;
  const worker = new JobWorker(db, log, { pollIntervalMs: 50 });
  worker.register('noop', async () => undefined);
  try {
    worker.start();
    await new Promise((r) => setTimeout(r, 2_500));
  } finally {
    await worker.stop();
    await db.destroy();
  }
  // At a 50 ms poll a naive loop would try ~50 times here; backing off, it tries at 0, ~1 s and ~2 s.
  expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  const pauses = lines.filter((l) => l.level === 'warn' && /cannot start yet/.test(l.msg));
  expect(pauses.length).toBeGreaterThanOrEqual(1);
  expect(pauses.length).toBeLessThanOrEqual(4);
});
