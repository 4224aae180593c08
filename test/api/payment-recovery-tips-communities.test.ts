import request from 'supertest';
import { sandboxActions, sandboxFee } from '../../src/integrations/payments';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { catchUpEvents, recheckPayments, reconcileDay } from '../../src/modules/reconciliation';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { community, person } from '../helpers/communities';
import { deliver, stripeEvent } from '../helpers/stripe';

/**
 * Recovering missed processor events for tips and community payments (the gifts'
 * side is payment-recovery.test.ts): with the sandbox's deliveries off, a one-time tip, the
 * first payment of a monthly tip and the first payment of a community membership (joined
 * directly, and approved by a leader) become paid through the recheck alone, with their ledger
 * group, events and mails; an expired tip checkout cancels its tip. The real webhooks then
 * arriving late, shuffled and twice change nothing, and the day reconciles clean.
 */

afterAll(closeDb);
const t = createTestApp({ env: { SANDBOX_WEBHOOK_URL: 'off' } });
const db = () => testDb();
const handlers = collected.webhookHandlers;
const api = (p: string) => `/api/v1${p}`;
const today = () => new Date().toISOString().slice(0, 10);
const intentOf = (secret: string) => secret.split('_secret_')[0]!;

type Obj = Record<string, any>;

const count = async (table: string) => Number((await db()(table).count<{ n: string }[]>({ n: '*' }))[0]!.n);
const fund = async (id: string) => -Number((await db()('ledger_entries').where({ account: `liability:community:${id}` }).sum({ s: 'amount_cents' }))[0].s ?? 0);

async function startTip(cadence: 'one_time' | 'recurring', amount: number) {
  const r = await request(t.app).post(api('/platform/tips')).send({ amount_cents: amount, cadence });
  expect(r.status).toBe(201);
  return (await db()('tips').where({ id: r.body.data.id }).first('id', 'processor_checkout_session_id')) as { id: string; processor_checkout_session_id: string };
}

const state = {
  tips: {} as Record<'once' | 'monthly' | 'expired', string>,
  communities: {} as Record<'open' | 'approval', string>,
  joins: {} as Record<'open' | 'approval', string>,
};

/** Everything the recovery may touch: rows, money, events, mails, outbound deliveries. */
async function snapshot() {
  await t.runJobs();
  return {
    tips: await db()('tips').whereIn('id', Object.values(state.tips)).orderBy('id').select('id', 'status', 'paid_at', 'processor_subscription_id', 'processor_payment_intent_id'),
    tip_payments: await db()('tip_payments').orderBy('id').select('id', 'tip_id', 'amount_cents', 'fee_cents', 'refunded_cents', 'ledger_group_id'),
    joins: await db()('community_joins').whereIn('id', Object.values(state.joins)).orderBy('id').select('id', 'status', 'processor_subscription_id'),
    community_payments: await db()('community_payments').orderBy('id').select('id', 'join_id', 'amount_cents', 'fee_cents', 'ledger_group_id'),
    members: await count('community_members'),
    ledger_entries: await count('ledger_entries'),
    events: await count('events'),
    mails: await count('mail_outbox'),
    webhook_deliveries: await count('webhook_deliveries'),
  };
}

/** Every event the sandbox recorded (none was delivered). */
async function recordedEvents(): Promise<Obj[]> {
  const rows = await db()('sandbox_objects').where({ kind: 'event' }).orderBy('created_at').select('data');
  return rows.map((r) => r.data.event);
}

describe('recovering tips and community payments with the sandbox deliveries off', () => {
  test('when a join request\'s card is saved and tips and community memberships are paid at the processor with no webhook, then the recheck passes the request to the leaders and settles each payment once with its ledger group, events and mails, and a second recheck changes nothing', async () => {
    // A community whose leaders approve: the saved card is charged off session on approval.
    const owner = await person(t);
    const gated = await community(t, owner.h, { name: 'Gated Readers', price_cents: 2_500, requires_approval: true });
    const m2 = await person(t);
    const j2 = await request(t.app).post(api(`/communities/${gated.id}/join/paid`)).set(m2.h).send({ interval: 'month' });
    expect(j2.status).toBe(201);
    expect((await request(t.app).post(`/sandbox/setup-intents/${intentOf(j2.body.data.client_secret)}/confirm`).send({ outcome: 'succeeded' })).status).toBe(200);
    // The saved card's event never arrived either: the recheck asks about the SetupIntent, and the leaders hear of the request.
    expect((await db()('community_joins').where({ id: j2.body.data.join_id }).first('status')).status).toBe('requires_payment_method');
    expect(await recheckPayments(t.ctx, handlers, 0)).toMatchObject({ rechecked: 1, applied: 1, failed: 0 });
    expect((await db()('community_joins').where({ id: j2.body.data.join_id }).first('status')).status).toBe('pending_approval');
    expect(await db()('events').where({ type: 'community.join_requested' }).whereRaw("payload->>'join_id' = ?", [j2.body.data.join_id])).toHaveLength(1);
    expect((await request(t.app).post(api(`/communities/${gated.id}/join-requests/${j2.body.data.join_id}/approve`)).set(owner.h)).status).toBe(200);

    // Tips: one-time paid, monthly (subscription mode) paid, one-time whose checkout expired.
    const once = await startTip('one_time', 700);
    const monthly = await startTip('recurring', 900);
    const expired = await startTip('one_time', 1_100);
    state.tips = { once: once.id, monthly: monthly.id, expired: expired.id };
    for (const s of [once, monthly]) expect((await request(t.app).post(`/sandbox/checkout/${s.processor_checkout_session_id}/complete`)).status).toBe(303);
    expect((await request(t.app).post(`/sandbox/checkout/${expired.processor_checkout_session_id}/cancel`)).status).toBe(303);

    // A community anyone joins by paying its first invoice.
    const open = await community(t, owner.h, { name: 'Open Readers', price_cents: 1_500 });
    const m1 = await person(t);
    const j1 = await request(t.app).post(api(`/communities/${open.id}/join/paid`)).set(m1.h).send({ interval: 'month' });
    expect(j1.status).toBe(201);
    const paid = await request(t.app).post(`/sandbox/payment-intents/${intentOf(j1.body.data.client_secret)}/confirm`).send({ outcome: 'succeeded' });
    expect(paid.body.data.webhook_delivered).toBe(false);
    state.communities = { open: open.id, approval: gated.id };
    state.joins = { open: j1.body.data.join_id, approval: j2.body.data.join_id };

    expect((await db()('tips').whereIn('id', Object.values(state.tips)).select('status')).map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
    expect((await db()('community_joins').whereIn('id', Object.values(state.joins)).orderBy('status').select('status')).map((r) => r.status)).toEqual(['approved', 'pending_payment']);
    const eventsBefore = await count('events');

    const r = await recheckPayments(t.ctx, handlers, 0);
    expect(r).toMatchObject({ rechecked: 5, failed: 0 });

    const tip = (id: string) => db()('tips').where({ id }).first('status', 'processor_subscription_id');
    expect(await tip(once.id)).toMatchObject({ status: 'paid' });
    expect(await tip(monthly.id)).toMatchObject({ status: 'paid', processor_subscription_id: expect.stringMatching(/^sub_/) });
    expect(await tip(expired.id)).toMatchObject({ status: 'canceled' });
    // One payment each, with the processor's fee as a webhook's would carry it.
    const tp = await db()('tip_payments').orderBy('amount_cents').select('tip_id', 'amount_cents', 'fee_cents');
    expect(tp).toEqual([
      { tip_id: once.id, amount_cents: 700, fee_cents: sandboxFee(700) },
      { tip_id: monthly.id, amount_cents: 900, fee_cents: sandboxFee(900) },
    ]);
    const join = (id: string) => db()('community_joins').where({ id }).first('status');
    expect(await join(state.joins.open)).toMatchObject({ status: 'active' });
    expect(await join(state.joins.approval)).toMatchObject({ status: 'active' });
    expect(await fund(open.id)).toBe(1_500 - sandboxFee(1_500));
    expect(await fund(gated.id)).toBe(2_500 - sandboxFee(2_500));
    expect(await db()('community_members').where({ user_id: m1.u.id, community_id: open.id, status: 'active' })).toHaveLength(1);
    expect(await db()('community_members').where({ user_id: m2.u.id, community_id: gated.id, status: 'active' })).toHaveLength(1);

    // The same domain events a webhook brings: tip.paid twice.
    const paidTips = (await db()('events').where({ type: 'tip.paid' }).select('payload')).map((e) => e.payload.tip_id).sort();
    expect(paidTips).toEqual([once.id, monthly.id].sort());
    expect(await count('events')).toBeGreaterThan(eventsBefore);

    const before = await snapshot();
    // The tip receipts went out.
    expect(before.mails).toBeGreaterThanOrEqual(2);
    const again = await recheckPayments(t.ctx, handlers, 0);
    expect(again).toMatchObject({ applied: 0, failed: 0 });
    expect(await snapshot()).toEqual(before);
    expect(await checkLedger(db())).toEqual([]);
  });

  test('when the real webhooks then arrive late, shuffled and each twice, then rows, ledger, events, mails and outbound deliveries stay as the recheck left them', async () => {
    const before = await snapshot();
    const events = await recordedEvents();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['checkout.session.completed', 'checkout.session.expired', 'invoice.paid', 'payment_intent.succeeded']));
    const doubled = [...events, ...events].sort(() => Math.random() - 0.5);
    for (const e of doubled) expect((await deliver(t, e)).status).toBe(200);
    expect(await snapshot()).toEqual(before);
    expect(await checkLedger(db())).toEqual([]);
  });

  test('when the day is reconciled, then every tip and community charge matches its ledger group and the day is clean', async () => {
    const run = await reconcileDay(t.ctx, today());
    expect(run.differences).toEqual([]);
    expect(run.status).toBe('clean');
  });

  test('when tips and community payments are refunded at the processor with no delivery, then the catch-up records each refund once and the day still reconciles clean', async () => {
    const tipPi = async (id: string) => (await db()('tip_payments').where({ tip_id: id }).first('processor_payment_intent_id')).processor_payment_intent_id as string;
    const joinPi = async (id: string) => (await db()('community_payments').where({ join_id: id }).first('processor_payment_intent_id')).processor_payment_intent_id as string;
    await sandboxActions.refundPaymentIntent(db(), await tipPi(state.tips.once), 200);
    await sandboxActions.refundPaymentIntent(db(), await tipPi(state.tips.monthly));
    await sandboxActions.refundPaymentIntent(db(), await joinPi(state.joins.open), 500);
    await sandboxActions.refundPaymentIntent(db(), await joinPi(state.joins.approval));

    const r = await catchUpEvents(t.ctx, handlers);
    expect(r).toMatchObject({ applied: 4, failed: 0 });
    const refunded = async (id: string) => Number((await db()('tip_payments').where({ tip_id: id }).first('refunded_cents')).refunded_cents);
    expect([await refunded(state.tips.once), await refunded(state.tips.monthly)]).toEqual([200, 900]);
    expect(await fund(state.communities.open)).toBe(1_500 - sandboxFee(1_500) - 500);
    // A full refund takes back the whole charge; the processor kept its fee, which the fund bore.
    expect(await fund(state.communities.approval)).toBe(-sandboxFee(2_500));
    const after = await snapshot();
    expect(await catchUpEvents(t.ctx, handlers)).toMatchObject({ applied: 0, failed: 0 });
    for (const e of (await recordedEvents()).filter((x) => x.type === 'charge.refunded')) expect((await deliver(t, e)).status).toBe(200);
    expect(await snapshot()).toEqual(after);

    const run = await reconcileDay(t.ctx, today());
    expect(run.differences).toEqual([]);
    expect(run.status).toBe('clean');
    expect(await checkLedger(db())).toEqual([]);
  });

  test('when a community payment\'s refund arrives before the payment itself, then it is refused for a retry (500), and once the recheck has recorded the payment the same event takes the refund out of the fund once', async () => {
    const m = await person(t);
    const j = await request(t.app).post(api(`/communities/${state.communities.open}/join/paid`)).set(m.h).send({ interval: 'month' });
    expect(j.status).toBe(201);
    const pi = intentOf(j.body.data.client_secret);
    expect((await request(t.app).post(`/sandbox/payment-intents/${pi}/confirm`).send({ outcome: 'succeeded' })).status).toBe(200);
    const before = await fund(state.communities.open);
    const refund = stripeEvent('charge.refunded', { id: `ch_${pi}`, object: 'charge', amount: 1_500, amount_refunded: 600, currency: 'usd', payment_intent: pi, metadata: { kind: 'community_join', join_id: j.body.data.join_id } });
    expect((await deliver(t, refund)).status).toBe(500);
    expect(await fund(state.communities.open)).toBe(before);
    // Past the processor's retry window a refund of a payment never recorded is left to reconciliation, not retried.
    const stale = { ...stripeEvent('charge.refunded', { ...refund.data.object, payment_intent: 'pi_never_recorded' }), created: Math.floor(Date.now() / 1000) - 4 * 86_400 };
    expect((await deliver(t, stale)).status).toBe(200);

    await recheckPayments(t.ctx, handlers, 0);
    expect(await fund(state.communities.open)).toBe(before + 1_500 - sandboxFee(1_500));
    expect((await deliver(t, refund)).status).toBe(200);
    expect((await deliver(t, refund)).status).toBe(200);
    expect(await fund(state.communities.open)).toBe(before + 1_500 - sandboxFee(1_500) - 600);
    expect(await checkLedger(db())).toEqual([]);
  });
});
