import request from 'supertest';
import { commands } from '../../src/cli/commands';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testConfig, testDb } from '../helpers/app';
import { admin } from '../helpers/processes';



// A known flag (set-flag refuses unknown keys); this file's database is its own.
// Each CLI process starts tsx and loads the modules: ~3 s idle, up to 18 s with both cores busy (load
// average 16), so a test that runs one or two of them gets 120 s, not a timeout tuned to an idle machine.
const KEY = 'features.project_updates';

afterAll(async () => {
  await testDb()('feature_flags').where({ key: KEY }).del();
  await closeDb();
});

describe('operator CLI', () => {
  test('when set-flag <key> off then one line, exit 0 and the flag is stored off; on turns it back on', async () => {
    const off = await admin('set-flag', KEY, 'off');
    expect(off.code).toBe(0);
    expect(off.stdout.trim().split('\n')).toHaveLength(1);
    expect(off.stdout).toContain(KEY);
    expect(await testDb()('feature_flags').where({ key: KEY }).first()).toEqual(expect.objectContaining({ key: KEY, enabled: false }));

    const on = await admin('set-flag', KEY, 'on');
    expect(on.code).toBe(0);
    expect((await testDb()('feature_flags').where({ key: KEY }).first()).enabled).toBe(true);
  }, 120_000);

  test('when set-flag gets a bad value or key then it exits non-zero with a message and prints nothing', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['set-flag', 'features.comments', 'maybe'], /on or off/],
      [['set-flag', 'comments', 'off'], /features\./],
      [['set-flag'], /features\./],
    ];
    const results = await Promise.all(cases.map(([args]) => admin(...args)));
    results.forEach((r, i) => {
      expect({ args: cases[i][0], code: r.code === 0 ? 0 : 'non-zero', stdout: r.stdout }).toEqual({ args: cases[i][0], code: 'non-zero', stdout: '' });
      expect(r.stderr).toMatch(cases[i][1]);
    });
  }, 120_000);

  test('when the command is unknown or missing then usage on stderr and a non-zero exit', async () => {
    const [unknown, none] = await Promise.all([admin('frobnicate'), admin()]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/Unknown command: frobnicate/);
    expect(unknown.stderr).toMatch(/set-flag/);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/Usage/);
  }, 120_000);

  // One CLI process (its wiring: one line, exit 0); the rerun and the ledger check run in-process. Three
  // processes (each starting tsx, loading every module and checking the migrations) took 76 s with both
  // cores busy; the check-ledger command's own process is check-ledger.test.ts's subject.
  test('when seed-demo runs twice then one line each, and the demo campaigns are listed, searchable and near their cities once', async () => {
    const first = await admin('seed-demo');
    expect(first.code).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(1);
    const second = await commands['seed-demo']!.run(testDb(), [], testConfig());
    expect(second.split('\n')).toHaveLength(1);
    expect(second).toContain('12 demo campaigns');

    const { app } = createTestApp();
    const list = await request(app).get('/api/v1/fundraisers?q=shelter');
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { slug: string }) => c.slug)).toContain('demo-winter-food-for-the-austin-dog-shelter');
    const near = await request(app).get('/api/v1/fundraisers?near=30.27,-97.74&radius_mi=10');
    expect(near.body.data.filter((c: { slug: string }) => c.slug.startsWith('demo-'))).toHaveLength(2);

    // The demo money arrived as settled gifts, so the ledger proves every total (and a rerun added none).
    const shelter = await request(app).get('/api/v1/fundraisers/slug/demo-winter-food-for-the-austin-dog-shelter');
    expect(shelter.body.data).toMatchObject({ total_raised_cents: 312_500, donation_count: 5, donor_count: 5 });
    expect(await checkLedger(testDb())).toEqual([]);
    // One process: ~5 s idle, 18 s at load average 16 on 2 cores; 120 s holds a 4x slowdown of that.
  }, 120_000);
});

