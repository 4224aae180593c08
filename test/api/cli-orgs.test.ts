import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { registerOrg } from '../helpers/organizations';
import { admin } from '../helpers/processes';

// A CLI process (tsx, every module loaded) takes up to 18 s with both cores busy (load average 16):
// a test running a few of them gets 120 s, not a timeout tuned to an idle machine.
const CLI_TEST_MS = 120_000;

afterAll(closeDb);

const t = createTestApp();

describe('operator CLI: verify-org', () => {
  test('when verify-org <slug> on then one line, exit 0 and the organization reads verified; off takes it back', async () => {
    const org = await registerOrg(t, await createUser(testDb()));
    expect((await request(t.app).get(`/api/v1/organizations/${org.slug}`)).body.data.verified).toBe(false);
    const on = await admin('verify-org', org.slug, 'on');
    expect(on).toMatchObject({ code: 0, stderr: '' });
    expect(on.stdout.trim()).toBe(`organization ${org.slug} is now verified`);
    expect((await testDb()('organizations').where({ id: org.id }).first()).verified).toBe(true);
    expect((await request(t.app).get(`/api/v1/organizations/${org.id}`)).body.data.verified).toBe(true);

    const off = await admin('verify-org', org.slug.toUpperCase(), 'off');
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('not verified');
    expect((await testDb()('organizations').where({ id: org.id }).first()).verified).toBe(false);
  }, CLI_TEST_MS);

  test('when verify-org gets no slug, a bad value or an unknown organization then it exits non-zero with a message and prints nothing', async () => {
    const org = await registerOrg(t, await createUser(testDb()));
    const cases: Array<[string[], RegExp]> = [
      [['verify-org'], /slug/],
      [['verify-org', org.slug, 'yes'], /on or off/],
      [['verify-org', 'no-such-org-here', 'on'], /no organization no-such-org-here/],
    ];
    const results = await Promise.all(cases.map(([args]) => admin(...args)));
    results.forEach((r, i) => {
      expect({ args: cases[i][0], code: r.code === 0 ? 0 : 'non-zero', stdout: r.stdout }).toEqual({ args: cases[i][0], code: 'non-zero', stdout: '' });
      expect(r.stderr).toMatch(cases[i][1]);
    });
    expect((await testDb()('organizations').where({ id: org.id }).first()).verified).toBe(false);
  }, CLI_TEST_MS);
});
