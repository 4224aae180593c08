import { closeDb, testDb } from '../helpers/app';
import { admin } from '../helpers/processes';
import { enqueue } from '../../src/infra/jobs';
import { commands } from '../../src/cli/commands';
import { pendingJobs } from '../../src/jobs/admin';

// A CLI process (tsx, every module loaded) takes up to 18 s with both cores busy (load average 16):
// a test running a few of them gets 120 s, not a timeout tuned to an idle machine.
const CLI_TEST_MS = 120_000;

afterAll(closeDb);

describe('operator CLI for the person on call', () => {
  test('when asked for help, then every command is listed with exit 0, and exit codes are explained', async () => {
    const r = await admin('help');
    expect(r.code).toBe(0);
    for (const name of Object.keys(commands)) expect(r.stdout).toContain(`  ${name} `);
    expect(r.stdout).toMatch(/Exit codes: 0 .*; 1 .*; 2 /);
  }, CLI_TEST_MS);

  test('when a flag key, role or status is unknown, then it is refused with exit 2 naming the allowed values', async () => {
    const [flag, role, status] = await Promise.all([
      admin('set-flag', 'features.nope', 'on'),
      admin('grant-role', 'ada@example.com', 'superuser'),
      admin('user-status', 'ada@example.com', 'frozen'),
    ]);
    expect([flag.code, role.code, status.code]).toEqual([2, 2, 2]);
    expect(flag.stderr).toMatch(/unknown flag features\.nope; allowed: .*features\.comments/);
    expect(role.stderr).toMatch(/unknown role superuser; allowed: admin, staff, ambassador/);
    expect(status.stderr).toMatch(/unknown status frozen; allowed: active, suspended, banned, deactivated/);
    expect(flag.stdout + role.stdout + status.stdout).toBe('');
  }, CLI_TEST_MS);

  test('when jobs wait and one failed, then `jobs` counts them by task, `jobs failed` lists it and `jobs retry` makes it due again', async () => {
    const db = testDb();
    await enqueue(db, 'cli.waiting', { n: 1 });
    await enqueue(db, 'cli.waiting', { n: 2 });
    await enqueue(db, 'cli.broken', {}, { maxAttempts: 1 });
    await db.raw(`update graphile_worker._private_jobs set attempts = 1, last_error = 'boom: the cover URL answered 500'
      where task_id = (select id from graphile_worker._private_tasks where identifier = 'cli.broken')`);
    const [counts, failed] = await Promise.all([admin('jobs'), admin('jobs', 'failed')]);
    expect(counts.code).toBe(0);
    expect(counts.stdout).toMatch(/cli\.broken\s+0\s+0\s+0\s+1 /);
    expect(counts.stdout).toMatch(/cli\.waiting\s+2\s+0\s+0\s+0\s+\d+ s/);
    expect(failed.code).toBe(0);
    const id = /^(\d+)\s+cli\.broken\s+attempts 1\/1 .*boom: the cover URL answered 500$/m.exec(failed.stdout)?.[1];
    expect(id).toBeDefined();

    const [retry, missing, bad] = await Promise.all([admin('jobs', 'retry', id!), admin('jobs', 'retry', '999999'), admin('jobs', 'retry', 'abc')]);
    expect(retry.code).toBe(0);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no failed job 999999/);
    expect(bad.code).toBe(2);
    expect(await pendingJobs(db, 'cli.broken')).toMatchObject([{ id, attempts: 0 }]);
  }, CLI_TEST_MS);

  test('when a long command runs, then it reports progress on stderr and its result on stdout', async () => {
    const r = await admin('rebuild-leaderboard');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/rebuild-leaderboard: rebuilding every period/);
    expect(r.stdout).toMatch(/^leaderboard rebuilt in [\d.]+ s\n$/);
  }, CLI_TEST_MS);
});
