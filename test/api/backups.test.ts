import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { Client } from 'pg';
import { closeDb, createTestApp, testConfig, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { adminWith, ROOT } from '../helpers/processes';
import { deliver } from '../helpers/stripe';
import { chargeRefunded, piSucceeded, startGift } from './donations-fixtures';
import { findClientTools } from '../../src/integrations/pg-tools';
import { dailyBackup, listArchives } from '../../src/modules/backups';
import { integrityReport } from '../../src/modules/integrity';

// Logical backups of the database this file runs on (its own per-file database, embedded or on
// DATABASE_URL's server): never another database, except the scratch ones verify-backup makes.
const CLI_MS = 240_000;
const url = process.env.TEST_DIRECT_DATABASE_URL ?? process.env.TEST_DATABASE_URL!;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backups-test-'));
const env = { BACKUP_DIR: dir };

// Decided before the tests are declared, so a missing client skips them visibly rather than
// passing; asked of the template (same server): this file's database exists only from beforeAll.
const serverMajor = Number(
  execFileSync(
    process.execPath,
    ['-e', `const c = new (require('pg').Client)(process.argv[1]); c.connect().then(() => c.query('show server_version_num')).then((r) => { console.log(Math.floor(r.rows[0].server_version_num / 10000)); return c.end(); })`, process.env.TEST_TEMPLATE_URL!],
    { cwd: ROOT, encoding: 'utf8' },
  ).trim(),
);
const client = findClientTools().find((t) => t.major >= serverMajor);
const required = process.env.REQUIRE_PG_DUMP === '1';
const withClient = client || required ? test : test.skip;
if (!client) {
  process.stderr.write(`backups.test: no pg_dump of PostgreSQL ${serverMajor} or newer on this machine: the backup round trip is skipped${required ? ' (REQUIRE_PG_DUMP=1: failing instead)' : ''}\n`);
}

afterAll(async () => {
  await closeDb();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function scratchDatabases(): Promise<string[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>(`select datname from pg_database where datname like 'verify\\_backup\\_%'`);
    return rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
}

/** Everything in the database gone, as after losing it: every schema but Postgres's own. */
async function loseEverything(): Promise<void> {
  const db = testDb();
  const { rows } = await db.raw<{ rows: Array<{ nspname: string }> }>(`select nspname from pg_namespace where nspname not like 'pg\\_%' and nspname <> 'information_schema'`);
  for (const r of rows) await db.raw('drop schema ?? cascade', [r.nspname]);
  await db.raw('create schema public');
}

function gauge(body: string, name: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('logical backups: npm run admin -- backup / restore / verify-backup', () => {
  const started = Date.now() / 1000;
  let archive = '';
  let before: Awaited<ReturnType<typeof integrityReport>>;

  (client ? test.skip : test)('when no pg_dump as new as the server is found, then backup exits 1 saying which client to install', async () => {
    const r = await adminWith(env, 'backup');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no pg_dump/pg_restore of PostgreSQL ${serverMajor} or newer`);
    expect(r.stderr).toContain(`postgresql-client-${serverMajor}`);
    expect(listArchives(dir)).toEqual([]);
  }, CLI_MS);

  withClient('when gifts settled and one was refunded, then backup writes one custom-format archive named by its UTC time and prints its path', async () => {
    const t = createTestApp();
    const db = testDb();
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    const a = await startGift(t, f.id, 2_000, 300);
    const b = await startGift(t, f.id, 1_000);
    await deliver(t, piSucceeded(a));
    await deliver(t, piSucceeded(b));
    await deliver(t, chargeRefunded(b, 400));
    before = await integrityReport(db);
    expect(before.problems).toEqual([]);
    expect(before.counts.gifts).toBe(2);

    const r = await adminWith(env, 'backup');
    expect(r.code).toBe(0);
    archive = r.stdout.trim();
    expect(path.dirname(archive)).toBe(fs.realpathSync(dir));
    expect(path.basename(archive)).toMatch(/^backup-\d{8}T\d{6}\.\d{3}Z\.dump$/);
    expect(fs.readFileSync(archive).subarray(0, 5).toString()).toBe('PGDMP');
    expect(listArchives(dir)).toEqual([archive]);
  }, CLI_MS);

  withClient('when the database holds data, then restore refuses without --force (exit 1) and changes nothing', async () => {
    const extra = await createFundraiser(testDb(), (await createUser(testDb())).id);
    const r = await adminWith(env, 'restore', archive);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not empty .*restore refused; --force/);
    expect(await testDb()('fundraisers').where({ id: extra.id }).first()).toBeDefined();
  }, CLI_MS);

  withClient('when --force is given, then the database is emptied and restored: the later campaign is gone and every count matches', async () => {
    const r = await adminWith(env, 'restore', '--force', path.basename(archive));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^restored .*; restore point \d{4}-\d\d-\d\dT/);
    expect(await integrityReport(testDb())).toEqual(before);
  }, CLI_MS);

  withClient('when the database is lost and the archive restored into the empty one, then check-ledger is clean and the counts are equal', async () => {
    await loseEverything();
    const r = await adminWith(env, 'restore', archive);
    expect(r.code).toBe(0);
    expect(await integrityReport(testDb())).toEqual(before);
    const check = await adminWith(env, 'check-ledger');
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(`${before.counts.ledger_groups} groups`);
  }, CLI_MS);

  withClient('when verify-backup runs on a good archive, then it prints the restore point and counts, and leaves no scratch database', async () => {
    const r = await adminWith(env, 'verify-backup');
    expect(r.code).toBe(0);
    const { campaigns, gifts, ledger_groups } = before.counts;
    expect(r.stdout).toMatch(new RegExp(`^verified ${archive.replace(/[.]/g, '\\.')}; restore point \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; ${campaigns} campaigns, ${gifts} gifts, ${ledger_groups} ledger groups; ledger clean\\n$`));
    expect(await scratchDatabases()).toEqual([]);
  }, CLI_MS);

  withClient('when the newest archive is truncated, then verify-backup exits 1 and leaves no scratch database', async () => {
    const bytes = fs.readFileSync(archive);
    const cut = path.join(dir, 'backup-29991231T235959.999Z.dump');
    fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const r = await adminWith(env, 'verify-backup');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/backup-29991231T235959\.999Z\.dump did not restore: pg_restore/);
    expect(await scratchDatabases()).toEqual([]);
    fs.rmSync(cut);
  }, CLI_MS);

  withClient('when the daily backup runs with BACKUP_KEEP=2, then only the two newest archives stay', async () => {
    const old = ['backup-20200101T000000.000Z.dump', 'backup-20200102T000000.000Z.dump', 'backup-20200103T000000.000Z.dump'].map((n) => path.join(dir, n));
    for (const f of old) fs.writeFileSync(f, 'old');
    const config = testConfig({ BACKUP_DIR: dir, BACKUP_KEEP: '2' });
    const r = await dailyBackup(testDb(), config, url);
    expect(listArchives(dir)).toEqual([r.file, archive]);
    expect(r.pruned.sort()).toEqual(old);
  }, CLI_MS);

  withClient('when /metrics is read, then both backup gauges give the time of the newest success from the database', async () => {
    const t = createTestApp();
    const res = await request(t.app).get('/metrics').expect(200);
    const success = gauge(res.text, 'backup_last_success_timestamp_seconds');
    const verified = gauge(res.text, 'backup_last_verified_timestamp_seconds');
    expect(success).toBeGreaterThanOrEqual(Math.floor(started));
    expect(verified).toBeGreaterThanOrEqual(Math.floor(started));
    expect(success!).toBeGreaterThanOrEqual(verified!);
    expect(res.text).toContain('# TYPE backup_last_success_timestamp_seconds gauge');
  }, CLI_MS);
});
