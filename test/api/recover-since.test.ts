import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { commands } from '../../src/cli/commands';
import type { Config } from '../../src/config';
import { createContext } from '../../src/create-context';
import { createDb, type Db } from '../../src/db/knex';
import { causedEventId } from '../../src/events';
import { createLogger } from '../../src/infra/logger';
import { registerJobs } from '../../src/jobs';
import { checkLedger } from '../../src/modules/integrity';
import { serverSql, serverUrlOf } from '../helpers/db-copies';
import { closeDb, createTestApp, testConfig, testDb, type TestApp } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver } from '../helpers/stripe';
import { stripeDouble } from '../helpers/stripe-double';
import { webhookApi, webhookReceiver, type Received } from '../helpers/webhook-receiver';
import { chargeIdOf, chargeRefunded, dispute, piSucceeded, startGift, type Gift } from './donations-fixtures';

/**
 * Restore, then get back what the processor knows. A database copied by Postgres (CREATE DATABASE
 * ... TEMPLATE) stands for yesterday's backup; gifts settle, are refunded and disputed after it
 * through signed webhooks, with outbound webhooks sent to a local receiver; `recover-since` on the
 * copy reads the processor's event list (the Stripe adapter against a Stripe-compatible double)
 * and replays it through the webhook's exactly-once path. The copy ends with the same money as the
 * original, and the receiver gets again only ids it already had.
 */

const ENV = { SANDBOX_WEBHOOK_URL: 'off', WEBHOOK_ALLOW_PRIVATE: 'true' };
let a: TestApp = createTestApp({ env: ENV });
const receiver = webhookReceiver();
const hook = webhookApi(a);
/** The processor's events list, newest first as Stripe lists it. */
const listed: Array<Record<string, unknown>> = [];
const double = stripeDouble((method, path) => {
  if (method === 'GET' && path === '/v1/events') return [200, { object: 'list', url: '/v1/events', has_more: false, data: listed }];
  return [404, { error: { type: 'invalid_request_error', message: `No such object (${method} ${path})` } }];
});
const stripeConfig = (): Config => testConfig({ ...ENV, STRIPE_SECRET_KEY: 'sk_test_restore', STRIPE_API_URL: double.url(), STRIPE_WEBHOOK_SECRET: 'whsec_restore' });

const snapName = `${new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1)}_restored`;
let restored: Db | null = null;
afterAll(async () => {
  await restored?.destroy();
  await serverSql(`drop database if exists "${snapName}" with (force)`);
  await closeDb();
});

/** Runs every due job on another database (the restored copy), as a worker started against it would. */
async function runJobsOn(db: Db): Promise<void> {
  const config = testConfig(ENV);
  const ctx = createContext({ config, db, log: createLogger(config.LOG_LEVEL) });
  registerJobs(ctx);
  try {
    await ctx.jobs.drain();
  } finally {
    await ctx.jobs.stop();
  }
}

/** Delivers one signed event to the app and adds it to the processor's list. */
async function happen(t: TestApp, event: Record<string, unknown>) {
  listed.unshift(event);
  expect((await deliver(t, event)).status).toBe(200);
}
/** The PaymentIntent as Stripe sends it, its charge's fee expanded (no processor call needed to settle). */
const paid = (g: Gift, fee: number) => piSucceeded(g, { latest_charge: { id: chargeIdOf(g.payment_intent_id), object: 'charge', balance_transaction: { id: `txn_${g.payment_intent_id}`, object: 'balance_transaction', fee } } });

const money = async (db: Db, fundraiserId: string) => ({
  fundraiser: await db('fundraiser_counters').where({ id: fundraiserId }).first('raised_cents', 'tips_cents', 'donation_count', 'donor_count'),
  donations: await db('donations').where({ fundraiser_id: fundraiserId }).orderBy('id').select('id', 'status', 'refunded_cents', 'disputed_cents', 'processor_fee_cents'),
  ledger: (await db('ledger_entries').count<{ n: string }[]>({ n: '*' }))[0]!.n,
  processed: (await db('processed_webhook_events').count<{ n: string }[]>({ n: '*' }))[0]!.n,
});
const recoverSince = (db: Db, at: Date, config: Config = stripeConfig()) => commands['recover-since']!.run(db, [at.toISOString()], config);

describe('recover-since after a restore to an earlier point', () => {
  let fid = '';
  let path = '';
  let secret = '';
  let gifts: Gift[] = [];
  let backupAt = new Date();
  let before: Received[] = [];
  let after: Received[] = [];

  test('when gifts settle, are refunded and disputed after a backup, then the backup lacks them and the receiver has one delivery per event', async () => {
    const owner = await createUser(testDb());
    fid = (await createFundraiser(testDb(), owner.id)).id;
    path = receiver.path('ok');
    ({ secret } = await hook.endpointFor(await authHeaders(a, owner), `${receiver.base()}${path}`));
    gifts = [await startGift(a, fid, 1_000, 100), await startGift(a, fid, 2_000), await startGift(a, fid, 3_000), await startGift(a, fid, 4_000, 400)];
    // Gift 0 settles before the backup.
    await happen(a, paid(gifts[0]!, 59));
    await a.runJobs();
    before = [...receiver.at(path)];
    expect(before.map((r) => JSON.parse(r.body).type)).toEqual(['donation.paid']);

    // The backup: Postgres copies the database (no connection may be open to it meanwhile).
    await a.ctx.jobs.stop();
    await closeDb();
    await serverSql(`create database "${snapName}" template "${new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1)}"`);
    backupAt = new Date();
    a = createTestApp({ env: ENV });

    // After the backup: three gifts paid, refunds (two of one gift), a dispute, and gift 0 refunded.
    const [g0, g1, g2, g3] = gifts as [Gift, Gift, Gift, Gift];
    for (const [g, fee] of [[g1, 88], [g2, 117], [g3, 156]] as const) await happen(a, paid(g, fee));
    await happen(a, chargeRefunded(g1, 500));
    await happen(a, chargeRefunded(g1, 2_000));
    await happen(a, dispute(g2, 'charge.dispute.created', 'needs_response'));
    await happen(a, chargeRefunded(g3, 300));
    await happen(a, chargeRefunded(g0, 1_100));
    await a.runJobs();
    after = receiver.at(path).slice(before.length);
    expect(after.map((r) => JSON.parse(r.body).type).sort()).toEqual([...Array(3).fill('donation.paid'), ...Array(4).fill('donation.refunded')].sort());
    expect(await checkLedger(testDb())).toEqual([]);
  });

  test('when recover-since the backup time runs on the restored copy, then every later payment, refund and dispute comes back once and the money equals the original', async () => {
    restored = createDb(serverUrlOf(snapName), { max: 3 });
    expect((await money(restored, fid)).fundraiser.donation_count).toBe(1);
    const line = await recoverSince(restored, backupAt);
    // Nine events listed (five minutes of overlap take in gift 0's payment, already recorded).
    expect(line.split('\n')[0]).toBe(
      `recover-since ${backupAt.toISOString()}: 9 (8 applied, 0 new but changed nothing, 1 already recorded) processor event(s) listed from ${new Date(backupAt.getTime() - 300_000).toISOString()} (stripe)`,
    );
    expect(line).toContain('  charge.refunded: 4 (4 applied, 0 new but changed nothing, 0 already recorded)');
    expect(line).toContain('  payment_intent.succeeded: 4 (3 applied, 0 new but changed nothing, 1 already recorded)');
    expect(line).toContain('  charge.dispute.created: 1 (1 applied');
    expect(await money(restored, fid)).toEqual(await money(testDb(), fid));
    expect(await checkLedger(restored)).toEqual([]);
  });

  test('when the restored copy sends its outbound webhooks, then the receiver gets the ids it already had, for the gifts after the backup only, and verifiable', async () => {
    await runJobsOn(restored!);
    const again = receiver.at(path).slice(before.length + after.length);
    const ids = (rs: Received[]) => rs.map((r) => r.headers['webhook-id']).sort();
    expect(ids(again)).toEqual(ids(after));
    expect(ids(again)).not.toContain(before[0]!.headers['webhook-id']);
    // The id of a paid gift derives from its PaymentIntent (whichever event settled it).
    const g1Paid = again.find((r) => JSON.parse(r.body).type === 'donation.paid' && JSON.parse(r.body).data.donation_id === gifts[1]!.donation_id)!;
    expect(g1Paid.headers['webhook-id']).toBe(causedEventId(gifts[1]!.payment_intent_id, 'donation.paid'));
    expect(() => new Webhook(secret).verify(g1Paid.body, g1Paid.headers)).not.toThrow();
    // A refund's id derives from the processor event that reported it.
    const refundIds = again.filter((r) => JSON.parse(r.body).type === 'donation.refunded').map((r) => r.headers['webhook-id']);
    const refundEvents = listed.filter((e) => e.type === 'charge.refunded').map((e) => causedEventId(String(e.id), 'donation.refunded'));
    expect(refundIds.sort()).toEqual(refundEvents.sort());
  });

  test('when recover-since runs again, or on the original that has every event, then nothing changes and nothing is sent', async () => {
    const sent = receiver.at(path).length;
    for (const db of [restored!, testDb()]) {
      const was = await money(db, fid);
      const line = await recoverSince(db, backupAt);
      expect(line.split('\n')[0]).toContain(': 9 (0 applied, 0 new but changed nothing, 9 already recorded)');
      expect(await money(db, fid)).toEqual(was);
    }
    await runJobsOn(restored!);
    await a.runJobs();
    expect(receiver.at(path)).toHaveLength(sent);
  });

  test('when the sandbox processor recorded a payment it never delivered, then recover-since through the sandbox settles it once', async () => {
    const g = await startGift(a, fid, 5_000);
    const since = new Date(Date.now() - 1_000);
    expect((await request(a.app).post(`/sandbox/payment-intents/${g.payment_intent_id}/confirm`).send({ outcome: 'succeeded' })).status).toBe(200);
    expect((await testDb()('donations').where({ id: g.donation_id }).first('status')).status).toBe('pending');
    const first = await recoverSince(testDb(), since, testConfig(ENV));
    expect(first).toMatch(/\(sandbox\)/);
    expect(first).toContain('payment_intent.succeeded: 1 (1 applied');
    expect((await testDb()('donations').where({ id: g.donation_id }).first('status')).status).toBe('paid');
    expect(await recoverSince(testDb(), since, testConfig(ENV))).toContain('payment_intent.succeeded: 1 (0 applied, 0 new but changed nothing, 1 already recorded)');
    expect(await checkLedger(testDb())).toEqual([]);
  });

  test('when the time is missing, not ISO or in the future, then a usage error', () => {
    const check = commands['recover-since']!.check!;
    expect(() => check([])).toThrow(/ISO time/);
    expect(() => check(['yesterday'])).toThrow(/ISO time/);
    expect(() => check([new Date(Date.now() + 3_600_000).toISOString()])).toThrow(/future/);
    expect(() => check(['2026-01-01T00:00:00Z', 'extra'])).toThrow(/unknown argument/);
  });
});
