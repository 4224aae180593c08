import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { sandboxFee } from '../../src/integrations/payments';
import { completeCheckout } from '../../src/integrations/payments/sandbox-actions';
import { checkLedger } from '../../src/modules/integrity';
import { tipLedgerCheck } from '../../src/modules/tips/tips.check';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { deliver, stripeEvent } from '../helpers/stripe';

afterAll(closeDb);

let t: TestApp;
beforeEach(() => {
  t = createTestApp(); // fresh limiter buckets per test
});

async function newTip(cadence: 'one_time' | 'recurring', amount = 500) {
  const r = await request(t.app).post('/api/v1/platform/tips').send({ amount_cents: amount, cadence });
  expect(r.status).toBe(201);
  return t.ctx.db('tips').where({ id: r.body.data.id }).first();
}

const session = (tip: any, over: Record<string, unknown> = {}) => ({
  id: tip.processor_checkout_session_id,
  object: 'checkout.session',
  mode: tip.cadence === 'recurring' ? 'subscription' : 'payment',
  payment_status: 'paid',
  amount_total: Number(tip.amount_cents),
  currency: 'usd',
  payment_intent: tip.cadence === 'recurring' ? null : `pi_${randomUUID().slice(0, 8)}`,
  metadata: { kind: 'tip', tip_id: tip.id },
  ...over,
});

const invoice = (tip: any, sub: string, over: Record<string, unknown> = {}) => ({
  id: `in_${randomUUID().slice(0, 12)}`,
  object: 'invoice',
  subscription: sub,
  customer: 'cus_test',
  amount_paid: Number(tip.amount_cents),
  currency: 'usd',
  subscription_details: { metadata: { kind: 'tip', tip_id: tip.id } },
  ...over,
});

const ok = async (event: Record<string, any>) => expect((await deliver(t, event)).status).toBe(200);
const tipRow = (id: string) => t.ctx.db('tips').where({ id }).first();
const receipt = async (id: string) => (await request(t.app).get(`/api/v1/platform/tips/${id}`)).body.data;
const ledgerFor = (id: string) => t.ctx.db('ledger_entries').where({ tip_id: id }).orderBy('id');
const paidEvents = async (id: string) => (await t.ctx.db('events').where({ type: 'tip.paid' })).filter((e) => e.payload.tip_id === id);
const revenue = async (id: string) =>
  -Number((await t.ctx.db('ledger_entries').where({ tip_id: id, account: 'revenue:tips' }).sum({ s: 'amount_cents' }))[0].s ?? 0);

describe('one-time tips', () => {
  it('when checkout.session.completed arrives, then the tip is paid once: one balanced ledger group, one payment, one tip.paid, even for a redelivery and a second event of the same payment', async () => {
    const tip = await newTip('one_time', 500);
    const event = stripeEvent('checkout.session.completed', session(tip));
    await ok(event);
    await ok(event); // the same event id again
    await ok(stripeEvent('checkout.session.completed', event.data.object)); // the same payment, another event id
    expect(await tipRow(tip.id)).toMatchObject({ status: 'paid', paid_at: expect.any(Date) });
    const entries = await ledgerFor(tip.id);
    expect(entries.map((e) => [e.account, Number(e.amount_cents), e.kind])).toEqual([
      ['asset:processor_balance', 500, 'tip'],
      ['revenue:tips', -500, 'tip'],
    ]);
    expect(await t.ctx.db('tip_payments').where({ tip_id: tip.id })).toHaveLength(1);
    expect(await paidEvents(tip.id)).toHaveLength(1);
    expect((await receipt(tip.id)).status).toBe('paid');
    expect(await tipLedgerCheck(t.ctx.db)).toEqual([]);
  });

  it.each([
    ['amount', { amount_total: 499 }],
    ['currency', { currency: 'eur' }],
  ])('when the %s differs from the tip, then nothing settles', async (_what, over) => {
    const tip = await newTip('one_time', 500);
    await ok(stripeEvent('checkout.session.completed', session(tip, over)));
    expect((await tipRow(tip.id)).status).toBe('pending');
    expect(await ledgerFor(tip.id)).toHaveLength(0);
  });

  it('when the payment method is asynchronous, then completion leaves the tip pending and async_payment_succeeded settles it; async failure fails another', async () => {
    const tip = await newTip('one_time');
    await ok(stripeEvent('checkout.session.completed', session(tip, { payment_status: 'unpaid' })));
    expect((await tipRow(tip.id)).status).toBe('pending');
    await ok(stripeEvent('checkout.session.async_payment_succeeded', session(tip)));
    expect((await tipRow(tip.id)).status).toBe('paid');
    const other = await newTip('one_time');
    await ok(stripeEvent('checkout.session.async_payment_failed', session(other, { payment_status: 'unpaid' })));
    expect((await tipRow(other.id)).status).toBe('failed');
  });

  it('when a tip charge is refunded in parts and in full, then tips revenue falls by what was refunded, once per amount, and the tip reads refunded', async () => {
    const tip = await newTip('one_time', 1000);
    const s = session(tip);
    await ok(stripeEvent('checkout.session.completed', s));
    const charge = (refunded: number) =>
      stripeEvent('charge.refunded', { id: `ch_${tip.id.slice(0, 8)}`, object: 'charge', amount: 1000, amount_refunded: refunded, currency: 'usd', payment_intent: s.payment_intent, metadata: {} });
    const partial = charge(300);
    await ok(partial);
    await ok(partial); // redelivered
    expect(await revenue(tip.id)).toBe(700);
    expect((await receipt(tip.id)).status).toBe('paid');
    await ok(charge(1000));
    await ok(charge(300)); // an older report arriving late changes nothing
    expect(await revenue(tip.id)).toBeCloseTo(0, 10); // -0 from negating an empty sum
    expect((await receipt(tip.id)).status).toBe('refunded');
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it('when a one-time tip is refunded before its success arrives, then the refund settles it first and the later success changes nothing', async () => {
    const tip = await newTip('one_time', 800);
    const s = session(tip);
    await ok(stripeEvent('charge.refunded', { id: `ch_${tip.id.slice(0, 8)}`, object: 'charge', amount: 800, amount_refunded: 800, currency: 'usd', payment_intent: s.payment_intent, metadata: { kind: 'tip', tip_id: tip.id } }));
    expect((await receipt(tip.id)).status).toBe('refunded');
    await ok(stripeEvent('checkout.session.completed', s));
    expect((await receipt(tip.id)).status).toBe('refunded');
    expect(await t.ctx.db('tip_payments').where({ tip_id: tip.id })).toHaveLength(1);
    expect(await revenue(tip.id)).toBeCloseTo(0, 10);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it('when the checkout session expires, then the pending tip is canceled', async () => {
    const tip = await newTip('one_time');
    await ok(stripeEvent('checkout.session.expired', session(tip, { payment_status: 'unpaid', status: 'expired' })));
    expect((await receipt(tip.id)).status).toBe('canceled');
  });

  it('when the event names an unknown tip, then it answers 200 and changes nothing', async () => {
    const before = await t.ctx.db('tip_payments').count<{ n: string }[]>({ n: '*' });
    const res = await deliver(t, stripeEvent('checkout.session.completed', session({ id: randomUUID(), amount_cents: 500, processor_checkout_session_id: 'cs_x' })));
    expect(res.status).toBe(200);
    expect(await t.ctx.db('tip_payments').count<{ n: string }[]>({ n: '*' })).toEqual(before);
  });

  it('when the sandbox completes the checkout, then its events settle the tip with the processor fee as an expense', async () => {
    const tip = await newTip('one_time', 2000);
    const { events } = await completeCheckout(t.ctx.db, tip.processor_checkout_session_id);
    for (const e of events) await ok(e);
    const fee = sandboxFee(2000);
    const entries = await ledgerFor(tip.id);
    expect(entries.map((e) => [e.account, Number(e.amount_cents)])).toEqual(
      expect.arrayContaining([
        ['asset:processor_balance', 2000],
        ['revenue:tips', -2000],
        ['expense:processor_fees', fee],
        ['asset:processor_balance', -fee],
      ]),
    );
    expect(new Set(entries.map((e) => e.group_id)).size).toBe(1);
    expect(Number((await t.ctx.db('tip_payments').where({ tip_id: tip.id }).first()).fee_cents)).toBe(fee);
  });
});

describe('monthly tips', () => {
  it('when the sandbox completes a monthly checkout and the invoice arrives before the session, then the tip is paid once with its subscription active', async () => {
    const tip = await newTip('recurring', 1000);
    const { events } = await completeCheckout(t.ctx.db, tip.processor_checkout_session_id);
    for (const e of [...events].reverse()) await ok(e);
    const row = await tipRow(tip.id);
    expect(row).toMatchObject({ status: 'paid', processor_subscription_id: expect.stringMatching(/^sub_/), subscription_status: 'active' });
    expect(await revenue(tip.id)).toBe(1000);
    const r = await receipt(tip.id);
    expect(r.subscription).toEqual({ status: 'active', current_period_end: expect.any(String), canceled_at: null });
    expect(JSON.stringify(r)).not.toMatch(/sub_|cus_|in_sb|pi_/);
  });

  it('when a renewal invoice is paid, then it is a second payment; the same invoice again settles nothing', async () => {
    const tip = await newTip('recurring', 1000);
    await ok(stripeEvent('checkout.session.completed', session(tip, { subscription: 'sub_renew' })));
    await ok(stripeEvent('invoice.paid', invoice(tip, 'sub_renew', { id: 'in_first' })));
    const renewal = invoice(tip, 'sub_renew', { id: 'in_second', subscription_details: null });
    await ok(stripeEvent('invoice.paid', renewal)); // found by its subscription id alone
    await ok(stripeEvent('invoice.paid', renewal));
    expect(await revenue(tip.id)).toBe(2000);
    expect(await t.ctx.db('tip_payments').where({ tip_id: tip.id })).toHaveLength(2);
    expect(await paidEvents(tip.id)).toHaveLength(2);
    expect(await tipLedgerCheck(t.ctx.db)).toEqual([]);
  });

  it('when the first invoice fails, then the tip fails; a later paid invoice pays it', async () => {
    const tip = await newTip('recurring');
    await ok(stripeEvent('invoice.payment_failed', invoice(tip, 'sub_fail', { amount_paid: 0 })));
    expect((await tipRow(tip.id)).status).toBe('failed');
    await ok(stripeEvent('invoice.paid', invoice(tip, 'sub_fail')));
    expect((await tipRow(tip.id)).status).toBe('paid');
  });

  it('when subscription events arrive out of order, then the newest wins and a deletion is final', async () => {
    const tip = await newTip('recurring');
    await ok(stripeEvent('invoice.paid', invoice(tip, 'sub_ooo')));
    const now = Math.floor(Date.now() / 1000);
    const sub = (status: string, over: Record<string, unknown> = {}) => ({
      id: 'sub_ooo',
      object: 'subscription',
      status,
      current_period_end: now + 30 * 86400,
      canceled_at: null,
      metadata: { kind: 'tip', tip_id: tip.id },
      ...over,
    });
    const newer = stripeEvent('customer.subscription.updated', sub('past_due'));
    newer.created = now + 10;
    const older = stripeEvent('customer.subscription.updated', sub('active'));
    older.created = now;
    await ok(newer);
    await ok(older);
    expect((await receipt(tip.id)).subscription.status).toBe('past_due');
    const deleted = stripeEvent('customer.subscription.deleted', sub('canceled', { canceled_at: now + 20 }));
    deleted.created = now + 20;
    await ok(deleted);
    const late = stripeEvent('customer.subscription.updated', sub('active'));
    late.created = now + 30;
    await ok(late);
    const r = await receipt(tip.id);
    expect(r.status).toBe('paid');
    expect(r.subscription).toEqual({ status: 'canceled', current_period_end: expect.any(String), canceled_at: new Date((now + 20) * 1000).toISOString() });
  });

  it('when a pending monthly tip loses its subscription, then the tip is canceled', async () => {
    const tip = await newTip('recurring');
    await ok(stripeEvent('customer.subscription.deleted', { id: 'sub_gone', object: 'subscription', status: 'canceled', metadata: { kind: 'tip', tip_id: tip.id } }));
    expect(await receipt(tip.id)).toMatchObject({ status: 'canceled', subscription: { status: 'canceled', canceled_at: expect.any(String) } });
  });
});

describe('ledger check', () => {
  it('when the tips revenue and the tip payments disagree, then check-ledger names the tip; when they agree, it is clean', async () => {
    const tip = await newTip('one_time', 300);
    await ok(stripeEvent('checkout.session.completed', session(tip)));
    expect(await checkLedger(t.ctx.db)).toEqual([]);
    await t.ctx.db('tip_payments').insert({
      tip_id: tip.id,
      processor_checkout_session_id: `cs_forged_${randomUUID()}`,
      amount_cents: 300,
      currency: 'usd',
      ledger_group_id: randomUUID(),
    });
    const problems = await checkLedger(t.ctx.db);
    expect(problems).toEqual(expect.arrayContaining([expect.stringContaining(`platform tips: tip ${tip.id}: payments 600, ledger says 300`)]));
    await t.ctx.db('tip_payments').where({ tip_id: tip.id }).andWhere('processor_checkout_session_id', 'like', 'cs_forged_%').delete();
  });
});
