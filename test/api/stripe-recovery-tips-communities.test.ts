import request from 'supertest';
import { parseConfig } from '../../src/config';
import type { AppContext } from '../../src/context';
import { StripeProcessor } from '../../src/integrations/payments/stripe';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { catchUpEvents, recheckPayments } from '../../src/modules/reconciliation';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { community, person } from '../helpers/communities';
import { deliver, stripeEvent } from '../helpers/stripe';
import { stripeDouble } from '../helpers/stripe-double';

/**
 * Recovery (docs/decisions/0016-recovery-and-reconciliation.md) through the Stripe adapter for tips and community payments: rows started as usual,
 * then the recheck and the event catch-up ask a Stripe-compatible server (the real SDK against
 * test/helpers/stripe-double.ts) in Stripe's own shapes: a one-time tip's Checkout Session and
 * its PaymentIntent's fee, a monthly tip's session and its subscription's first invoice, a
 * community membership's subscription and first invoice, then refunds listed by GET /v1/events.
 */

afterAll(closeDb);
const t = createTestApp({ env: { SANDBOX_WEBHOOK_URL: 'off' } });
const db = () => testDb();
const handlers = collected.webhookHandlers;
const FEES: Record<string, number> = { pi_t1: 50, pi_t2: 56, pi_j1: 74 };

type Obj = Record<string, unknown>;
/** What the Stripe-compatible server knows: objects by path, and its events list. */
const objects = new Map<string, Obj>();
let events: Obj[] = [];

const double = stripeDouble((method, path) => {
  if (method === 'GET' && path === '/v1/events') return [200, { object: 'list', url: '/v1/events', has_more: false, data: events }];
  const pi = /^\/v1\/payment_intents\/(pi_\w+)$/.exec(path)?.[1];
  if (method === 'GET' && pi && FEES[pi] !== undefined) {
    return [200, { id: pi, object: 'payment_intent', status: 'succeeded', metadata: {}, latest_charge: { id: `ch_${pi}`, object: 'charge', balance_transaction: { id: `txn_${pi}`, object: 'balance_transaction', fee: FEES[pi] } } }];
  }
  const o = method === 'GET' ? objects.get(path) : undefined;
  return o ? [200, o] : [404, { error: { type: 'invalid_request_error', message: `No such object (${method} ${path})` } }];
});

/** The app's context with Stripe (the double) as its processor. */
const stripeCtx = (): AppContext => ({
  ...t.ctx,
  payments: new StripeProcessor(parseConfig({ STRIPE_SECRET_KEY: 'sk_test_recovery', STRIPE_API_URL: double.url(), STRIPE_WEBHOOK_SECRET: 'whsec_recovery' }), t.ctx.db),
});

const ids = { once: '', monthly: '', join: '', community: '' };
const fund = async () => -Number((await db()('ledger_entries').where({ account: `liability:community:${ids.community}` }).sum({ s: 'amount_cents' }))[0].s ?? 0);

async function startTip(cadence: 'one_time' | 'recurring', amount: number) {
  const r = await request(t.app).post('/api/v1/platform/tips').send({ amount_cents: amount, cadence });
  expect(r.status).toBe(201);
  return (await db()('tips').where({ id: r.body.data.id }).first('id', 'processor_checkout_session_id')) as { id: string; processor_checkout_session_id: string };
}

describe('recovery of tips and community payments through the Stripe adapter', () => {
  test('when Stripe says the sessions completed and the first invoices were paid, then the recheck settles each once with Stripe\'s fee and PaymentIntent, and asking again changes nothing', async () => {
    const once = await startTip('one_time', 700);
    const monthly = await startTip('recurring', 900);
    const owner = await person(t);
    const c = await community(t, owner.h, { price_cents: 1_500 });
    const m = await person(t);
    const j = await request(t.app).post(`/api/v1/communities/${c.id}/join/paid`).set(m.h).send({ interval: 'month' });
    expect(j.status).toBe(201);
    const join = await db()('community_joins').where({ id: j.body.data.join_id }).first('id', 'processor_subscription_id');
    Object.assign(ids, { once: once.id, monthly: monthly.id, join: join.id, community: c.id });

    const tipMeta = (id: string) => ({ kind: 'tip', tip_id: id });
    const session = (s: string, o: Obj) => objects.set(`/v1/checkout/sessions/${s}`, { id: s, object: 'checkout.session', status: 'complete', payment_status: 'paid', currency: 'usd', ...o });
    session(once.processor_checkout_session_id, { mode: 'payment', amount_total: 700, payment_intent: 'pi_t1', metadata: tipMeta(once.id) });
    // A subscription-mode session names its first invoice (Stripe sets `invoice` since 2022).
    session(monthly.processor_checkout_session_id, { mode: 'subscription', amount_total: 900, payment_intent: null, subscription: 'sub_t2', invoice: 'in_t2', customer: 'cus_t2', metadata: tipMeta(monthly.id) });
    const invoice = (id: string, amount: number, pi: string, customer: string) => ({ id, object: 'invoice', status: 'paid', amount_paid: amount, currency: 'usd', payment_intent: pi, customer });
    objects.set('/v1/subscriptions/sub_t2', { id: 'sub_t2', object: 'subscription', metadata: tipMeta(monthly.id), latest_invoice: invoice('in_t2', 900, 'pi_t2', 'cus_t2') });
    const sub = join.processor_subscription_id as string;
    objects.set(`/v1/subscriptions/${sub}`, { id: sub, object: 'subscription', metadata: { kind: 'community_join', join_id: join.id }, latest_invoice: invoice('in_j1', 1_500, 'pi_j1', 'cus_j1') });

    const r = await recheckPayments(stripeCtx(), handlers, 0);
    expect(r).toMatchObject({ rechecked: 3, failed: 0 });
    // The subscription is read with its latest invoice expanded.
    expect(double.seen.some((s) => s.path === `/v1/subscriptions/${sub}` && [...s.query.values()].includes('latest_invoice'))).toBe(true);

    expect(await db()('tips').whereIn('id', [once.id, monthly.id]).orderBy('amount_cents').select('status', 'processor_subscription_id')).toEqual([
      { status: 'paid', processor_subscription_id: null },
      { status: 'paid', processor_subscription_id: 'sub_t2' },
    ]);
    expect(await db()('tip_payments').orderBy('amount_cents').select('amount_cents', 'fee_cents', 'processor_payment_intent_id')).toEqual([
      { amount_cents: 700, fee_cents: 50, processor_payment_intent_id: 'pi_t1' },
      { amount_cents: 900, fee_cents: 56, processor_payment_intent_id: 'pi_t2' },
    ]);
    expect((await db()('community_joins').where({ id: join.id }).first('status')).status).toBe('active');
    expect(await fund()).toBe(1_500 - 74);
    // Each charge's ledger group is named by its PaymentIntent, as reconciliation matches them.
    const refs = await db()('ledger_entries').whereIn('processor_ref', ['pi_t1', 'pi_t2', 'pi_j1']).distinct('processor_ref', 'processor_move');
    expect(refs.map((e) => `${e.processor_ref}:${e.processor_move}`).sort()).toEqual(['pi_j1:charge', 'pi_t1:charge', 'pi_t2:charge']);

    const entries = await db()('ledger_entries').count<{ n: string }[]>({ n: '*' });
    expect(await recheckPayments(stripeCtx(), handlers, 0)).toMatchObject({ rechecked: 0, applied: 0 });
    // The real webhooks arriving late and twice change nothing either.
    const late = [
      stripeEvent('checkout.session.completed', objects.get(`/v1/checkout/sessions/${once.processor_checkout_session_id}`)!),
      stripeEvent('invoice.paid', { ...invoice('in_t2', 900, 'pi_t2', 'cus_t2'), subscription: 'sub_t2', subscription_details: { metadata: tipMeta(monthly.id) } }),
      stripeEvent('invoice.paid', { ...invoice('in_j1', 1_500, 'pi_j1', 'cus_j1'), subscription: sub, subscription_details: { metadata: { kind: 'community_join', join_id: join.id } } }),
    ];
    for (const e of [...late, ...late].reverse()) expect((await deliver(t, e)).status).toBe(200);
    expect(await db()('ledger_entries').count<{ n: string }[]>({ n: '*' })).toEqual(entries);
    expect(await checkLedger(db())).toEqual([]);
  });

  test('when Stripe\'s events list holds refunds no webhook delivered, then the catch-up records each once: the tip\'s revenue and the community fund fall by what was refunded', async () => {
    const charge = (pi: string, amount: number, refunded: number, metadata: Obj) => ({ id: `ch_${pi}`, object: 'charge', amount, amount_refunded: refunded, currency: 'usd', payment_intent: pi, metadata });
    events = [
      stripeEvent('charge.refunded', charge('pi_t1', 700, 300, { kind: 'tip', tip_id: ids.once })),
      // Stripe copies no metadata onto an invoice's charge: the payment is found by its PaymentIntent.
      stripeEvent('charge.refunded', charge('pi_j1', 1_500, 1_500, {})),
    ];
    const r = await catchUpEvents(stripeCtx(), handlers);
    expect(r).toMatchObject({ listed: 2, applied: 2, failed: 0 });
    expect(Number((await db()('tip_payments').where({ processor_payment_intent_id: 'pi_t1' }).first('refunded_cents')).refunded_cents)).toBe(300);
    expect(await fund()).toBe(-74);
    expect(await catchUpEvents(stripeCtx(), handlers)).toMatchObject({ listed: 2, applied: 0, failed: 0 });
    expect(await checkLedger(db())).toEqual([]);
  });
});
