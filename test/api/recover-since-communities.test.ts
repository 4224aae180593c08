import request from 'supertest';
import { commands } from '../../src/cli/commands';
import type { Config } from '../../src/config';
import { createContext } from '../../src/create-context';
import type { Db } from '../../src/db/knex';
import { createLogger } from '../../src/infra/logger';
import { HANDLED_EVENT_TYPES, type PaymentEvent } from '../../src/integrations/payments';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { processEvent } from '../../src/modules/webhooks';
import { databaseCopies, mapOf, processorEvents, stormReplay } from '../helpers/restore-rehearsal';
import { closeDb, createTestApp, testConfig, testDb, type TestApp } from '../helpers/app';
import { community, person, type Headers } from '../helpers/communities';
import { stripeDouble } from '../helpers/stripe-double';

/**
 * Paid community joins STARTED after the restore point. The processor (a Stripe-compatible double
 * holding its SetupIntents, subscriptions and event list outside the database) knows joins the
 * restored copy has no row for; their SetupIntent's and subscription's metadata describe them, so
 * `recover-since` rebuilds each from its events, once: a member who paid is a member again with the
 * fund's money, a request a leader approved and was paid for is too, one still waiting for the
 * leaders waits again. A copy made by Postgres (CREATE DATABASE ... TEMPLATE) stands for the backup.
 */

type Obj = Record<string, any>;
const ENV = { SANDBOX_WEBHOOK_URL: 'off', WEBHOOK_ALLOW_PRIVATE: 'true' };
const nowS = () => Math.floor(Date.now() / 1000);
let n = 0;
const setupIntents = new Map<string, Obj>();
const subscriptions = new Map<string, Obj>();
const fees = new Map<string, number>();

const double = stripeDouble((method, path, form) => {
  if (method === 'POST' && path === '/v1/customers') return [200, { id: `cus_rc_${(n += 1)}`, object: 'customer', metadata: mapOf(form, 'metadata') }];
  if (method === 'POST' && path === '/v1/products') return [200, { id: `prod_rc_${(n += 1)}`, object: 'product', name: form.get('name') }];
  if (method === 'POST' && path === '/v1/setup_intents') {
    const id = `seti_rc_${(n += 1)}`;
    const si = { id, object: 'setup_intent', status: 'requires_payment_method', usage: 'off_session', customer: form.get('customer'), metadata: mapOf(form, 'metadata'), client_secret: `${id}_secret_x`, payment_method: null, created: nowS() };
    setupIntents.set(id, si);
    return [200, si];
  }
  if (method === 'POST' && path === '/v1/subscriptions') {
    const k = (n += 1);
    const id = `sub_rc_${k}`;
    const sub = {
      id, object: 'subscription', status: 'incomplete', customer: form.get('customer'), metadata: mapOf(form, 'metadata'), created: nowS(),
      amount: Number(form.get('items[0][price_data][unit_amount]')), currency: form.get('items[0][price_data][currency]'),
      latest_invoice: { id: `in_rc_${k}`, object: 'invoice', confirmation_secret: { client_secret: `pi_rc_${k}_secret_x`, type: 'payment_intent' } },
    };
    subscriptions.set(id, sub);
    return [200, sub];
  }
  const pi = /^\/v1\/payment_intents\/(\w+)$/.exec(path)?.[1];
  if (method === 'GET' && pi && fees.has(pi)) {
    return [200, { id: pi, object: 'payment_intent', status: 'succeeded', metadata: {}, latest_charge: { id: `ch_${pi}`, object: 'charge', balance_transaction: { id: `txn_${pi}`, object: 'balance_transaction', fee: fees.get(pi) } } }];
  }
  if (method === 'GET' && path === '/v1/events') return [200, { object: 'list', url: '/v1/events', has_more: false, data: listed }];
  return [404, { error: { type: 'invalid_request_error', message: `No such object (${method} ${path})` } }];
});
const stripeEnv = () => ({ ...ENV, STRIPE_SECRET_KEY: 'sk_test_communities', STRIPE_API_URL: double.url(), STRIPE_WEBHOOK_SECRET: 'whsec_communities' });
const stripeConfig = (): Config => testConfig(stripeEnv());

const dbName = new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1);
const restoredName = `${dbName}_communities`;
const stormName = `${dbName}_communities_storm`;
const reversedName = `${dbName}_communities_reversed`;
const { dbOf, backup, dropAll } = databaseCopies([restoredName, stormName, reversedName]);

let a: TestApp;
beforeAll(() => {
  a = createTestApp({ env: stripeEnv() });
});
afterAll(async () => {
  await dropAll();
  await closeDb();
});

/** The processor's side: an event happens (listed, and delivered to the service). */
const { listed, happen } = processorEvents(() => a);
/** The card of a join request is saved (Stripe.js confirmed its SetupIntent). */
async function saveCard(setupIntentId: string) {
  const si = setupIntents.get(setupIntentId)!;
  Object.assign(si, { status: 'succeeded', payment_method: `pm_${si.id}` });
  await happen('setup_intent.succeeded', { ...si });
}
/** A subscription's first invoice is paid (its PaymentIntent carries no metadata), then the subscription is active. */
async function payFirstInvoice(subId: string, fee: number) {
  const sub = subscriptions.get(subId)!;
  const pi = `pi_${subId}`;
  fees.set(pi, fee);
  const end = nowS() + 30 * 86_400;
  await happen('invoice.paid', {
    id: sub.latest_invoice.id, object: 'invoice', status: 'paid', customer: sub.customer, amount_paid: sub.amount, currency: sub.currency, created: nowS(), billing_reason: 'subscription_create',
    parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
    payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: pi } }] },
    lines: { object: 'list', data: [{ period: { start: nowS(), end } }] },
  });
  sub.status = 'active';
  await happen('customer.subscription.updated', { id: sub.id, object: 'subscription', customer: sub.customer, status: 'active', metadata: sub.metadata, current_period_end: end, created: sub.created });
}
const subOfJoin = (joinId: string) => [...subscriptions.values()].find((s) => s.metadata.join_id === joinId)!;
const setupOfJoin = (joinId: string) => [...setupIntents.values()].find((s) => s.metadata.join_id === joinId)!;

async function join(c: { id: string }, h: Headers) {
  const r = await request(a.app).post(`/api/v1/communities/${c.id}/join/paid`).set(h).send({ interval: 'month' });
  expect(r.status).toBe(201);
  return r.body.data.join_id as string;
}

const JOIN_COLUMNS = ['id', 'community_id', 'user_id', 'interval', 'amount_cents', 'currency', 'needs_approval', 'status', 'processor_customer_id', 'processor_setup_intent_id', 'processor_payment_method_id', 'processor_subscription_id'];
const joinRows = (db: Db, ids: string[]) => db('community_joins').whereIn('id', ids).orderBy('id').select(...JOIN_COLUMNS);
const money = async (db: Db, communityIds: string[]) => ({
  members: await db('community_members').whereIn('community_id', communityIds).orderBy(['community_id', 'user_id']).select('community_id', 'user_id', 'role', 'status', 'join_id'),
  payments: await db('community_payments').whereIn('community_id', communityIds).orderBy('processor_invoice_id').select('community_id', 'join_id', 'processor_invoice_id', 'processor_payment_intent_id', 'amount_cents', 'fee_cents', 'currency', 'source_event_id'),
  // The groups of these communities' payments (the community made after the backup has its own in the original only).
  ledger: await db('ledger_entries as e')
    .join('community_payments as p', 'p.ledger_group_id', 'e.group_id')
    .whereIn('p.community_id', communityIds)
    .groupBy('e.account', 'e.kind')
    .orderBy(['e.account', 'e.kind'])
    .select('e.account', 'e.kind', db.raw('sum(e.amount_cents)::text as sum')),
});
const recoverSince = (db: Db, at: Date) => commands['recover-since']!.run(db, [at.toISOString()], stripeConfig());

describe('recover-since rebuilds community joins started after the restore point', () => {
  let backupAt = new Date();
  const C = { open: { id: '' }, approval: { id: '' }, later: { id: '' } };
  const J = { paid: '', approved: '', waiting: '', later: '', foreign: '' };
  const communityIds = () => [C.open.id, C.approval.id];
  const joinIds = () => [J.paid, J.approved, J.waiting];

  test('when joins are started after the backup, then the backup has no row for them and the original makes members of those who paid', async () => {
    const owner = await person(a);
    const [m1, m2, m3, m4] = [await person(a), await person(a), await person(a), await person(a)];
    C.open = await community(a, owner.h, { name: 'Open Owls', price_cents: 1_500 });
    C.approval = await community(a, owner.h, { name: 'Careful Owls', price_cents: 2_000, requires_approval: true });

    // The backup, thrice (for recover-since, the storm, the newest-first replay): no connection may be open meanwhile.
    ({ app: a, at: backupAt } = await backup(a, () => createTestApp({ env: stripeEnv() })));

    J.paid = await join(C.open, m1.h);
    await payFirstInvoice(subOfJoin(J.paid).id, 74);
    J.approved = await join(C.approval, m2.h);
    await saveCard(setupOfJoin(J.approved).id);
    const ok = await request(a.app).post(`/api/v1/communities/${C.approval.id}/join-requests/${J.approved}/approve`).set(owner.h);
    expect(ok.status).toBe(200);
    await payFirstInvoice(subOfJoin(J.approved).id, 88);
    J.waiting = await join(C.approval, m3.h);
    await saveCard(setupOfJoin(J.waiting).id);
    // A community made after the backup, and a member who paid: neither is in the restored copy.
    C.later = await community(a, owner.h, { name: 'Late Owls', price_cents: 1_000 });
    J.later = await join(C.later, m4.h);
    await payFirstInvoice(subOfJoin(J.later).id, 59);

    // Another deployment sharing the processor account: a complete description, another origin.
    J.foreign = '0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f';
    const other = { kind: 'community_join', join_id: J.foreign, community_id: C.open.id, user_id: m4.u.id, interval: 'month', amount_cents: '1500', currency: 'usd', needs_approval: 'false', origin: 'a0a0a0a0a0a0' };
    subscriptions.set('sub_rc_other', { id: 'sub_rc_other', object: 'subscription', status: 'incomplete', customer: 'cus_rc_other', metadata: other, created: nowS(), amount: 1_500, currency: 'usd', latest_invoice: { id: 'in_rc_other' } });
    await payFirstInvoice('sub_rc_other', 74);

    const restored = dbOf(restoredName);
    expect(await restored('community_joins').whereIn('id', [...joinIds(), J.later]).select('id')).toEqual([]);
    expect((await joinRows(testDb(), joinIds())).map((j) => [j.id, j.status])).toEqual(
      [[J.paid, 'active'], [J.approved, 'active'], [J.waiting, 'pending_approval']].sort((x, y) => x[0]!.localeCompare(y[0]!)),
    );
    expect(await testDb()('community_joins').where({ id: J.foreign }).first()).toBeUndefined();
    expect(await checkLedger(testDb())).toEqual([]);
  });

  test('when recover-since runs on the restored copy, then each join started after it exists once as the original has it, and the fund holds the same money', async () => {
    const restored = dbOf(restoredName);
    const line = await recoverSince(restored, backupAt);
    expect(line).not.toMatch(/failed/);
    expect(line.split('\n')[0]).toContain(`: ${listed.length} (`);
    expect(await joinRows(restored, joinIds())).toEqual(await joinRows(testDb(), joinIds()));
    // Which leader approved is not at the processor; that one did is.
    const approved = await restored('community_joins').where({ id: J.approved }).first('decided_by', 'decided_at', 'activated_at');
    expect([approved.decided_by, approved.decided_at, approved.activated_at]).toEqual([null, expect.any(Date), expect.any(Date)]);
    expect(await money(restored, communityIds())).toEqual(await money(testDb(), communityIds()));
    expect(await restored('communities').where({ id: C.later.id }).first()).toBeUndefined();
    expect(await restored('community_joins').whereIn('id', [J.later, J.foreign]).select('id')).toEqual([]);
    const queue = await restored('community_joins').where({ community_id: C.approval.id, status: 'pending_approval' }).select('id');
    expect(queue).toEqual([{ id: J.waiting }]);
    expect(await checkLedger(restored)).toEqual([]);
  });

  test('when recover-since runs again, then nothing changes', async () => {
    const restored = dbOf(restoredName);
    const was = { joins: await joinRows(restored, joinIds()), money: await money(restored, communityIds()) };
    const line = await recoverSince(restored, backupAt);
    expect(line.split('\n')[0]).toContain(`: ${listed.length} (0 applied, 0 new but changed nothing, ${listed.length} already recorded)`);
    expect({ joins: await joinRows(restored, joinIds()), money: await money(restored, communityIds()) }).toEqual(was);
  });

  test('when the same events arrive on a fresh copy shuffled, three times each and four at once, then it ends as the orderly replay did', async () => {
    const storm = dbOf(stormName);
    const outcomes = await stormReplay(storm, stripeConfig(), new Date(backupAt.getTime() - 300_000));
    expect(outcomes.filter((o) => o === 'duplicate').length).toBeGreaterThanOrEqual((outcomes.length * 2) / 3);
    expect(await joinRows(storm, joinIds())).toEqual(await joinRows(dbOf(restoredName), joinIds()));
    expect(await money(storm, communityIds())).toEqual(await money(dbOf(restoredName), communityIds()));
    expect(await storm('community_joins').whereIn('id', [J.later, J.foreign]).select('id')).toEqual([]);
    expect(await checkLedger(storm)).toEqual([]);
  });

  test('when the events arrive on a fresh copy newest first, one at a time, then it ends as the orderly replay did (an approved request\'s invoice before its saved card)', async () => {
    const copy = dbOf(reversedName);
    const ctx = createContext({ config: stripeConfig(), db: copy, log: createLogger('silent') });
    const events: PaymentEvent[] = [];
    // As Stripe lists them: newest first.
    for await (const e of ctx.payments.listEventsSince(new Date(backupAt.getTime() - 300_000), HANDLED_EVENT_TYPES)) events.push(e);
    expect(events.map((e) => e.id)).toEqual(listed.map((e) => e.id));
    for (const e of events) await processEvent(ctx, collected.webhookHandlers, e);
    expect(await joinRows(copy, joinIds())).toEqual(await joinRows(dbOf(restoredName), joinIds()));
    expect(await money(copy, communityIds())).toEqual(await money(dbOf(restoredName), communityIds()));
    expect(await checkLedger(copy)).toEqual([]);
  });
});
