import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { commands } from '../../src/cli/commands';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { eraseNow } from '../../src/modules/privacy';
import { closeDb, createTestApp, testConfig, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { filesHolding, findStrings, needlesOf, personStrings } from '../helpers/erasure-scan';
import { createFundraiser } from '../helpers/fundraisers';
import { storageEnv } from '../helpers/media';
import { freshIp } from '../helpers/organizations';
import { databaseCopies } from '../helpers/restore-rehearsal';

/**
 * An erasure outlives a restore. A backup taken before an account and a guest were erased holds
 * them; restoring it brings them back. Each erasure left an entry in the erasure log (file
 * storage, outside the database, ids only), and `reapply-erasures` (which recover-since runs
 * last) carries them out again on the restored database: no table, JSON value or file holds
 * them after it. A copy made by Postgres (CREATE DATABASE ... TEMPLATE) stands for the backup.
 */
const env = { STORAGE_DIR: storageEnv().STORAGE_DIR!, SANDBOX_WEBHOOK_URL: 'off' };
const config = () => testConfig(env);
const restoredName = `${new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1)}_erasure_log`;
const { dbOf, backup, dropAll } = databaseCopies([restoredName]);
const api = (p: string) => `/api/v1${p}`;
const logDir = path.join(env.STORAGE_DIR, 'erasure-log', 'v1');

let a: TestApp;
beforeAll(() => {
  a = createTestApp({ env });
});
afterAll(async () => {
  await dropAll();
  await closeDb();
});

async function drain(app: TestApp) {
  for (let i = 0; i < 20 && (await app.runJobs()) > 0; i += 1);
}

async function confirmGuestErasure(app: TestApp, email: string) {
  expect((await request(app.app).post(api('/privacy/requests')).set('X-Forwarded-For', freshIp()).send({ email, kind: 'erasure' })).status).toBe(200);
  const mail = await testDb()('mail_outbox').where({ to: email, template: 'privacy_request_confirm' }).first();
  const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
  const ok = await request(app.app).post(api('/privacy/requests/confirm')).set('X-Forwarded-For', freshIp()).send({ token });
  expect([ok.status, ok.body.data]).toEqual([200, { kind: 'erasure', status: 'done' }]);
}

describe('the erasure log', () => {
  it('when a backup from before two erasures is restored, then reapply-erasures erases the account and the guest again, and a second run changes nothing', async () => {
    const db = testDb();
    const tag = `zq${randomBytes(5).toString('hex')}`;
    const holder = await createUser(db);
    const campaign = await createFundraiser(db, holder.id);
    const u = await createUser(db, { email: `log-${tag}@example.test`, name: `Lena Log${tag}` });
    await createGift(db, { fundraiserId: campaign.id, donorUserId: u.id, donorName: `Lena Log${tag}`, donorEmail: u.email, amount: 1500, message: `note ${tag}-a1 for you` });
    const guest = `guest-${tag}@example.test`;
    await createGift(db, { fundraiserId: campaign.id, donorEmail: guest, donorName: `Gus Guest${tag}`, amount: 700, message: `guest ${tag}-g1 good luck` });
    await drain(a);
    const needles = needlesOf([...(await personStrings(db, tag, { userId: u.id, email: u.email })), ...(await personStrings(db, tag, { email: guest }))], tag);
    expect(needles).toEqual(expect.arrayContaining([u.email, guest, `Lena Log${tag}`, `Gus Guest${tag}`]));

    ({ app: a } = await backup(a, () => createTestApp({ env })));
    expect(await eraseNow(a.ctx, collected.personalData, u.id)).toBe('done');
    await confirmGuestErasure(a, guest);
    await drain(a);
    expect(await findStrings(testDb(), needles)).toEqual([]);
    // One entry per erasure, naming ids only, and never served as a file.
    const entries = fs.readdirSync(logDir);
    expect(entries).toHaveLength(2);
    expect(filesHolding(env.STORAGE_DIR, needles)).toEqual([]);
    expect(entries.map((f) => JSON.parse(fs.readFileSync(path.join(logDir, f), 'utf8')).kind).sort()).toEqual(['account', 'guest']);
    expect((await request(a.app).get(`/media/erasure-log/v1/${entries[0]}`)).status).toBe(404);

    // The restored database has them back, everywhere they were.
    const restored = dbOf(restoredName);
    expect((await findStrings(restored, needles)).length).toBeGreaterThan(0);
    const out = await commands['reapply-erasures']!.run(restored, [], config());
    expect(out).toBe('erasure log: 2 erasure(s) logged; carried out again: 1 account(s), 1 guest address(es); 0 already erased or not in this database');
    expect(await findStrings(restored, needles)).toEqual([]);
    expect(await checkLedger(restored)).toEqual([]);
    const gifts = await restored('donations').where({ fundraiser_id: campaign.id }).orderBy('amount_cents').select('amount_cents', 'anonymous', 'donor_name', 'message');
    expect(gifts.map((g) => [Number(g.amount_cents), g.anonymous, g.donor_name, g.message])).toEqual([[700, true, null, null], [1500, true, null, null]]);
    // Logged once: carrying them out again adds no entry, and a second run finds nothing to do.
    expect(fs.readdirSync(logDir)).toHaveLength(2);
    expect(await commands['reapply-erasures']!.run(restored, [], config())).toBe(
      'erasure log: 2 erasure(s) logged; carried out again: 0 account(s), 0 guest address(es); 2 already erased or not in this database',
    );
    // The live database has nothing to do either.
    expect(await commands['reapply-erasures']!.run(testDb(), [], config())).toMatch(/carried out again: 0 account\(s\), 0 guest address\(es\); 2 already/);
  });

  it('when a log entry cannot be read, then reapply-erasures says which and fails', async () => {
    fs.mkdirSync(logDir, { recursive: true });
    const bad = '20261128000000000-00000000-0000-4000-8000-000000000000.json';
    fs.writeFileSync(path.join(logDir, bad), '{"kind":"account","user_id":"not-an-id"}');
    try {
      await expect(commands['reapply-erasures']!.run(testDb(), [], config())).rejects.toThrow(`unreadable: erasure-log/v1/${bad}`);
    } finally {
      fs.rmSync(path.join(logDir, bad));
    }
  });
});
