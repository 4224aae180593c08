import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { commands } from '../../src/cli/commands';
import type { Config } from '../../src/config';
import { createContext } from '../../src/create-context';
import type { Db } from '../../src/db/knex';
import { causedEventId } from '../../src/events';
import { createLogger } from '../../src/infra/logger';
import { registerJobs } from '../../src/jobs';
import { checkLedger } from '../../src/modules/integrity';
import { databaseCopies, mapOf, processorEvents, stormReplay } from '../helpers/restore-rehearsal';
import { closeDb, createTestApp, testConfig, testDb, type TestApp } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { stripeDouble } from '../helpers/stripe-double';
import { webhookApi, webhookReceiver, type Received } from '../helpers/webhook-receiver';

/**
 * Gifts STARTED after the restore point. The processor (a Stripe-compatible double holding its
 * PaymentIntents, Checkout Sessions and event list outside the database) knows gifts the restored
 * copy has no row for; their objects' metadata describe them, so `recover-since` rebuilds each
 * from its events, once, and settles, refunds and disputes it as the original did. A copy made by
 * Postgres (CREATE DATABASE ... TEMPLATE) stands for the backup.
 */

type Obj = Record<string, any>;
const ENV = { SANDBOX_WEBHOOK_URL: 'off', WEBHOOK_ALLOW_PRIVATE: 'true' };
const nowS = () => Math.floor(Date.now() / 1000);
let n = 0;
const pis = new Map<string, Obj>();
const sessions = new Map<string, Obj>();

const chargeOf = (pi: Obj) => ({ id: `ch_${pi.id}`, object: 'charge', balance_transaction: { id: `txn_${pi.id}`, object: 'balance_transaction', fee: pi.fee } });
const double = stripeDouble((method, path, form, query) => {
  if (method === 'POST' && path === '/v1/payment_intents') {
    const id = `pi_rs_${(n += 1)}`;
    const pi = { id, object: 'payment_intent', amount: Number(form.get('amount')), currency: form.get('currency'), metadata: mapOf(form, 'metadata'), receipt_email: form.get('receipt_email'), created: nowS(), status: 'requires_payment_method', client_secret: `${id}_secret_x`, latest_charge: null, fee: 0 };
    pis.set(id, pi);
    return [200, pi];
  }
  if (method === 'POST' && path === '/v1/checkout/sessions') {
    const id = `cs_rs_${(n += 1)}`;
    const amount = [0, 1, 2].reduce((s, i) => s + Number(form.get(`line_items[${i}][price_data][unit_amount]`) ?? 0), 0);
    const s = { id, object: 'checkout.session', mode: form.get('mode'), url: `https://checkout.stripe.test/${id}`, metadata: mapOf(form, 'metadata'), pi_metadata: mapOf(form, 'payment_intent_data[metadata]'), sub_metadata: mapOf(form, 'subscription_data[metadata]'), customer_email: form.get('customer_email'), amount_total: amount, currency: form.get('line_items[0][price_data][currency]'), created: nowS(), status: 'open', payment_status: 'unpaid', payment_intent: null };
    sessions.set(id, s);
    return [200, s];
  }
  const pi = /^\/v1\/payment_intents\/(\w+)$/.exec(path);
  if (method === 'GET' && pi && pis.has(pi[1]!)) {
    const o = pis.get(pi[1]!)!;
    return [200, { ...o, latest_charge: o.status === 'succeeded' ? chargeOf(o) : null }];
  }
  if (method === 'GET' && path === '/v1/checkout/sessions') {
    const data = [...sessions.values()].filter((s) => s.payment_intent === query.get('payment_intent'));
    return [200, { object: 'list', url: path, has_more: false, data }];
  }
  if (method === 'GET' && path === '/v1/events') return [200, { object: 'list', url: '/v1/events', has_more: false, data: listed }];
  return [404, { error: { type: 'invalid_request_error', message: `No such object (${method} ${path})` } }];
});
const stripeEnv = () => ({ ...ENV, STRIPE_SECRET_KEY: 'sk_test_started', STRIPE_API_URL: double.url(), STRIPE_WEBHOOK_SECRET: 'whsec_started' });
const stripeConfig = (): Config => testConfig(stripeEnv());

const dbName = new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1);
const restoredName = `${dbName}_started`;
const stormName = `${dbName}_storm`;
const { dbOf, backup, dropAll } = databaseCopies([restoredName, stormName]);

let a: TestApp;
const receiver = webhookReceiver();
beforeAll(() => {
  a = createTestApp({ env: stripeEnv() });
});
afterAll(async () => {
  await dropAll();
  await closeDb();
});

/** The processor's side: an event happens (listed, and delivered to the service). */
const { listed, happen } = processorEvents(() => a);
const view = (o: Obj) => Object.fromEntries(Object.entries(o).filter(([k]) => !['fee', 'pi_metadata', 'sub_metadata'].includes(k)));
async function pay(piId: string, fee: number) {
  const pi = pis.get(piId)!;
  Object.assign(pi, { status: 'succeeded', amount_received: pi.amount, fee });
  await happen('payment_intent.succeeded', { ...view(pi), latest_charge: `ch_${pi.id}` });
}
/** A Checkout payment: Stripe makes the PaymentIntent (the session's payment_intent_data metadata, no receipt address). */
async function completeCheckout(csId: string, email: string, fee: number) {
  const s = sessions.get(csId)!;
  const id = `pi_rs_${(n += 1)}`;
  pis.set(id, { id, object: 'payment_intent', amount: s.amount_total, amount_received: s.amount_total, currency: s.currency, metadata: s.pi_metadata, receipt_email: null, created: nowS(), status: 'succeeded', fee });
  Object.assign(s, { status: 'complete', payment_status: 'paid', payment_intent: id, customer_details: { email } });
  await happen('checkout.session.completed', view(s));
  await happen('payment_intent.succeeded', { ...view(pis.get(id)!), latest_charge: `ch_${id}` });
  return id;
}
/** A monthly gift's Checkout: the session completes, the first invoice is paid, the subscription is active (its PaymentIntent carries no metadata). */
async function completeMonthly(csId: string, email: string, fee: number) {
  const s = sessions.get(csId)!;
  const k = (n += 1);
  const [sub, customer, invoice, pi] = [`sub_rs_${k}`, `cus_rs_${k}`, `in_rs_${k}`, `pi_rs_${k}`];
  pis.set(pi, { id: pi, object: 'payment_intent', amount: s.amount_total, currency: s.currency, metadata: {}, created: nowS(), status: 'succeeded', fee });
  Object.assign(s, { status: 'complete', payment_status: 'paid', subscription: sub, customer, customer_details: { email } });
  await happen('checkout.session.completed', view(s));
  const end = nowS() + 30 * 86_400;
  await happen('invoice.paid', {
    id: invoice, object: 'invoice', status: 'paid', customer, customer_email: email, amount_paid: s.amount_total, currency: s.currency, created: nowS(),
    parent: { type: 'subscription_details', subscription_details: { subscription: sub, metadata: s.sub_metadata } },
    payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: pi } }] },
    lines: { object: 'list', data: [{ period: { start: nowS(), end } }] },
  });
  await happen('customer.subscription.updated', { id: sub, object: 'subscription', customer, status: 'active', metadata: s.sub_metadata, current_period_end: end });
  return pi;
}
async function refund(piId: string, amountRefunded: number, email: string) {
  const pi = pis.get(piId)!;
  await happen('charge.refunded', { id: `ch_${pi.id}`, object: 'charge', amount: pi.amount, amount_refunded: amountRefunded, currency: pi.currency, payment_intent: pi.id, metadata: pi.metadata, billing_details: { email }, created: nowS() });
}
async function dispute(piId: string) {
  const pi = pis.get(piId)!;
  await happen('charge.dispute.created', { id: `dp_${pi.id}`, object: 'dispute', amount: pi.amount, currency: pi.currency, charge: `ch_${pi.id}`, payment_intent: pi.id, status: 'needs_response', metadata: {} });
}

async function giveIntent(body: Obj, headers: Record<string, string> = {}) {
  const res = await request(a.app).post('/api/v1/payments/create-intent').set(headers).send(body);
  expect(res.status).toBe(201);
  return res.body.data as { donation_id: string; payment_intent_id: string };
}

const FOREIGN = randomUUID();
const GIFT_COLUMNS = ['id', 'fundraiser_id', 'donor_user_id', 'donor_email', 'donor_name', 'anonymous', 'amount_cents', 'tip_cents', 'currency', 'status', 'method', 'receipt_id', 'referral_code', 'locale', 'processor_payment_intent_id', 'processor_checkout_session_id', 'processor_charge_id', 'refunded_cents', 'disputed_cents', 'dispute_status', 'processor_fee_cents', 'platform_fee_cents', 'recurring_gift_id', 'processor_invoice_id'];
const MONTHLY_COLUMNS = ['id', 'fundraiser_id', 'donor_user_id', 'donor_email', 'donor_name', 'anonymous', 'amount_cents', 'tip_cents', 'currency', 'status', 'locale', 'processor_checkout_session_id', 'processor_subscription_id', 'processor_customer_id', 'first_donation_id', 'next_payment_at'];
const TIP_COLUMNS = ['id', 'user_id', 'email', 'anonymous', 'amount_cents', 'currency', 'cadence', 'status', 'locale', 'processor_checkout_session_id', 'processor_payment_intent_id', 'processor_subscription_id', 'processor_customer_id', 'subscription_status', 'current_period_end'];
const tipRows = (db: Db, ids: string[]) => db('tips').whereIn('id', ids).orderBy('id').select(...TIP_COLUMNS);
const monthlyRow = (db: Db, id: string) => db('recurring_gifts').where({ id }).first(...MONTHLY_COLUMNS);
/** A gift as a rebuilt row can hold it: an anonymous gift's name and the message are not at the processor. */
const giftRows = async (db: Db, ids: string[], columns = GIFT_COLUMNS) =>
  (await db('donations').whereIn('id', ids).orderBy('id').select(...columns)).map((r) => ({ ...r, donor_name: r.anonymous ? null : r.donor_name }));
const money = async (db: Db, fid: string) => ({
  fundraiser: await db('fundraiser_counters').where({ id: fid }).first('raised_cents', 'tips_cents', 'donation_count', 'donor_count'),
  donors: await db('fundraiser_donors').where({ fundraiser_id: fid }).orderBy('donor_key').select('donor_key', 'paid_count'),
  ledger: await db('ledger_entries').groupBy('account', 'kind').orderBy(['account', 'kind']).select('account', 'kind', db.raw('sum(amount_cents)::text as sum')),
  processed: (await db('processed_webhook_events').count<{ n: string }[]>({ n: '*' }))[0]!.n,
});
/**
 * check-ledger's findings, less the other deployment's payment: its success is recorded here
 * against a gift id no row has, which the check reports (as it always has for a shared account).
 */
const ledgerProblems = async (db: Db, foreignId = FOREIGN) => {
  const found = await checkLedger(db);
  expect(found.filter((l) => l.includes(foreignId))).toHaveLength(1);
  return found.filter((l) => !l.includes(foreignId));
};
const recoverSince = (db: Db, at: Date) => commands['recover-since']!.run(db, [at.toISOString()], stripeConfig());

/** Runs every due job on another database (a worker started against it). */
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

describe('recover-since rebuilds gifts started after the restore point', () => {
  let fid = '';
  let path = '';
  let backupAt = new Date();
  let before: Received[] = [];
  let after: Received[] = [];
  const B: Record<string, { donation_id: string; pi: string }> = {};
  const foreign = FOREIGN;
  let monthlyId = '';
  const tipIds: string[] = [];

  test('when gifts are started and paid after the backup, then the backup has no row for them and the original settles each once', async () => {
    const owner = await createUser(testDb());
    const donor = await createUser(testDb(), { name: 'Ada Donor' });
    fid = (await createFundraiser(testDb(), owner.id)).id;
    path = receiver.path('ok');
    await webhookApi(a).endpointFor(await authHeaders(a, owner), `${receiver.base()}${path}`);
    const giftA = await giveIntent({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'early@example.test' });
    await pay(giftA.payment_intent_id, 59);
    await a.runJobs();
    before = [...receiver.at(path)];
    expect(before).toHaveLength(1);

    // The backup, twice (one copy for recover-since, one for the storm): no connection may be open meanwhile.
    ({ app: a, at: backupAt } = await backup(a, () => createTestApp({ env: stripeEnv() })));

    const b1 = await giveIntent({ fundraiser_id: fid, amount_cents: 1_000, tip_cents: 150, donor_email: 'b1@example.test' });
    const b2 = await giveIntent({ fundraiser_id: fid, amount_cents: 2_000, donor_name: 'Ada D.' }, await authHeaders(a, donor));
    const b3 = await giveIntent({ fundraiser_id: fid, amount_cents: 3_000, tip_cents: 300, anonymous: true, donor_name: 'Hidden Name', message: 'a private note', donor_email: 'b3@example.test' });
    const cs = await request(a.app).post('/api/v1/donations').send({ fundraiser_id: fid, amount_cents: 4_000, tip_cents: 400, donor_email: 'b4@example.test', ref: 'share_b4' });
    expect(cs.status).toBe(201);
    const csId = [...sessions.keys()].at(-1)!;
    await pay(b1.payment_intent_id, 88);
    await pay(b2.payment_intent_id, 117);
    await pay(b3.payment_intent_id, 156);
    const b4pi = await completeCheckout(csId, 'b4@example.test', 171);
    const monthly = await request(a.app).post('/api/v1/donations').send({ fundraiser_id: fid, amount_cents: 2_500, tip_cents: 250, donor_email: 'b5@example.test', donor_name: 'Monthly Max', interval: 'month' });
    expect(monthly.status).toBe(201);
    const b5pi = await completeMonthly([...sessions.keys()].at(-1)!, 'b5@example.test', 99);
    const tipOnce = await request(a.app).post('/api/v1/platform/tips').send({ amount_cents: 500, cadence: 'one_time', email: 't1@example.test' });
    expect(tipOnce.status).toBe(201);
    await completeCheckout([...sessions.keys()].at(-1)!, 't1@example.test', 45);
    const tipMonthly = await request(a.app).post('/api/v1/platform/tips').set(await authHeaders(a, donor)).send({ amount_cents: 700, cadence: 'recurring', anonymous: true });
    expect(tipMonthly.status).toBe(201);
    await completeMonthly([...sessions.keys()].at(-1)!, donor.email, 50);
    tipIds.push(tipOnce.body.data.id, tipMonthly.body.data.id);
    await refund(b3.payment_intent_id, 1_000, 'b3@example.test');
    await dispute(b2.payment_intent_id);
    Object.assign(B, { b1: { donation_id: b1.donation_id, pi: b1.payment_intent_id }, b2: { donation_id: b2.donation_id, pi: b2.payment_intent_id }, b3: { donation_id: b3.donation_id, pi: b3.payment_intent_id }, b4: { donation_id: cs.body.data.donation_id, pi: b4pi }, b5: { donation_id: monthly.body.data.donation_id, pi: b5pi } });
    monthlyId = monthly.body.data.recurring_gift_id;

    // Another deployment sharing the processor account: a complete description, another origin.
    const other = { kind: 'donation', donation_id: foreign, fundraiser_id: fid, amount_cents: '500', tip_cents: '0', currency: 'usd', anonymous: 'false', method: 'payment_intent', locale: 'en', receipt_id: 'r_other_environment_0001', origin: 'a0a0a0a0a0a0' };
    pis.set('pi_rs_other', { id: 'pi_rs_other', object: 'payment_intent', amount: 500, currency: 'usd', metadata: other, receipt_email: 'x@example.test', created: nowS(), fee: 0 });
    await pay('pi_rs_other', 45);

    await a.runJobs();
    after = receiver.at(path).slice(before.length);
    expect(after.map((r) => JSON.parse(r.body).type).sort()).toEqual([...Array(5).fill('donation.paid'), 'donation.refunded', 'recurring_gift.started']);
    const restored = dbOf(restoredName);
    expect(await restored('donations').whereIn('id', Object.values(B).map((g) => g.donation_id)).select('id')).toEqual([]);
    expect(await tipRows(restored, tipIds)).toEqual([]);
    expect((await tipRows(testDb(), tipIds)).map((t) => t.status)).toEqual(['paid', 'paid']);
    expect(await testDb()('donations').where({ id: foreign }).first()).toBeUndefined();
    expect(await ledgerProblems(testDb())).toEqual([]);
  });

  test('when recover-since runs on the restored copy, then every gift started after it exists once, paid, as the original has it, and the money is the same', async () => {
    const restored = dbOf(restoredName);
    const line = await recoverSince(restored, backupAt);
    expect(line).not.toMatch(/failed/);
    expect(line.split('\n')[0]).toContain(`: ${listed.length} (`);
    const ids = Object.values(B).map((g) => g.donation_id);
    const rows = await giftRows(restored, ids);
    expect(rows).toEqual(await giftRows(testDb(), ids));
    expect(rows.map((r) => r.status)).toEqual(rows.map(() => 'paid'));
    const b2 = rows.find((r) => r.id === B.b2!.donation_id)!;
    expect([b2.donor_user_id, b2.donor_name, b2.dispute_status]).toEqual([expect.any(String), 'Ada D.', 'open']);
    const b3 = await restored('donations').where({ id: B.b3!.donation_id }).first('donor_name', 'message', 'refunded_cents', 'created_at');
    expect([b3.donor_name, b3.message, b3.refunded_cents]).toEqual([null, null, 1000]);
    const original = await testDb()('donations').where({ id: B.b3!.donation_id }).first('created_at');
    expect(Math.abs(new Date(b3.created_at).getTime() - new Date(original.created_at).getTime())).toBeLessThan(5_000);
    expect(await restored('donations').where({ id: foreign }).first()).toBeUndefined();
    expect(await monthlyRow(restored, monthlyId)).toEqual({ ...(await monthlyRow(testDb(), monthlyId)), status: 'active' });
    expect(await tipRows(restored, tipIds)).toEqual(await tipRows(testDb(), tipIds));
    expect(await money(restored, fid)).toEqual(await money(testDb(), fid));
    expect(await ledgerProblems(restored)).toEqual([]);
  });

  test('when the restored copy sends its outbound webhooks, then the receiver gets the ids it already had for those gifts, and none for the gift before the backup', async () => {
    await runJobsOn(dbOf(restoredName));
    const again = receiver.at(path).slice(before.length + after.length);
    const ids = (rs: Received[]) => rs.map((r) => r.headers['webhook-id']).sort();
    expect(ids(again)).toEqual(ids(after));
    expect(ids(again)).not.toContain(before[0]!.headers['webhook-id']);
    expect(ids(again)).toContain(causedEventId(B.b4!.pi, 'donation.paid'));
  });

  test('when recover-since runs again, then nothing changes', async () => {
    const restored = dbOf(restoredName);
    const was = await money(restored, fid);
    const line = await recoverSince(restored, backupAt);
    expect(line.split('\n')[0]).toContain(`: ${listed.length} (0 applied, 0 new but changed nothing, ${listed.length} already recorded)`);
    expect(await money(restored, fid)).toEqual(was);
  });

  test('when the same events arrive on a fresh copy shuffled, three times each and four at once, then it ends as the orderly replay did', async () => {
    const storm = dbOf(stormName);
    const outcomes = await stormReplay(storm, stripeConfig(), new Date(backupAt.getTime() - 300_000));
    expect(outcomes.filter((o) => o === 'duplicate').length).toBeGreaterThanOrEqual((outcomes.length * 2) / 3);
    const ids = [...Object.values(B).map((g) => g.donation_id), foreign];
    // A Checkout gift's charge id is noted by whichever of its two events settles it (any order, as without a restore).
    const columns = GIFT_COLUMNS.filter((c) => c !== 'processor_charge_id');
    expect(await giftRows(storm, ids, columns)).toEqual(await giftRows(dbOf(restoredName), ids, columns));
    expect(await monthlyRow(storm, monthlyId)).toEqual(await monthlyRow(dbOf(restoredName), monthlyId));
    expect(await tipRows(storm, tipIds)).toEqual(await tipRows(dbOf(restoredName), tipIds));
    expect(await money(storm, fid)).toEqual(await money(dbOf(restoredName), fid));
    expect(await ledgerProblems(storm)).toEqual([]);
  });
});
