import { parseConfig } from '../../src/config';
import type { Db } from '../../src/db/knex';
import { HANDLED_EVENT_TYPES, type BalanceTransaction, type PaymentEvent } from '../../src/integrations/payments';
import { StripeProcessor } from '../../src/integrations/payments/stripe';
import { stripeDouble } from '../helpers/stripe-double';

/**
 * Recovery (docs/decisions/0016-recovery-and-reconciliation.md) through the Stripe adapter and the real SDK against a Stripe-compatible server:
 * asking a payment's state (PaymentIntent, Checkout Session, a subscription's invoice), the
 * events list and the balance transactions list, both auto-paginated.
 */

/** An array parameter as the SDK encodes it (`expand[0]=...`, or `expand[]=...`). */
const arr = (q: URLSearchParams, name: string) => [...q].filter(([k]) => new RegExp(`^${name}\\[\\d*\\]$`).test(k)).map(([, v]) => v);

const D = '8d6f1c9e-3b2a-4c5d-9e8f-0a1b2c3d4e5f';
const meta = { kind: 'donation', donation_id: D };

function event(i: number) {
  return { id: `evt_${i}`, object: 'event', type: 'payment_intent.succeeded', created: 1_764_000_000 + i, data: { object: { id: `pi_e${i}`, object: 'payment_intent', amount: 100 * i, amount_received: 100 * i, currency: 'usd', status: 'succeeded', metadata: meta } } };
}

function balanceTxn(i: number) {
  const kinds = [
    { type: 'charge', amount: 1_000, fee: 59, source: { id: `ch_${i}`, object: 'charge', payment_intent: `pi_${i}` } },
    { type: 'refund', amount: -400, fee: 0, source: { id: `re_${i}`, object: 'refund', charge: `ch_${i}`, payment_intent: `pi_${i}` } },
    { type: 'adjustment', amount: -1_000, fee: 1_500, source: { id: `dp_${i}`, object: 'dispute', charge: `ch_${i}`, payment_intent: `pi_${i}` } },
    { type: 'transfer', amount: -900, fee: 0, source: { id: `tr_${i}`, object: 'transfer' } },
    { type: 'transfer_refund', amount: 900, fee: 0, source: { id: `trr_${i}`, object: 'transfer_reversal' } },
    { type: 'stripe_fee', amount: -200, fee: 0, source: null },
  ];
  const k = kinds[i % kinds.length]!;
  return { id: `txn_${String(i).padStart(4, '0')}`, object: 'balance_transaction', currency: 'usd', created: 1_764_000_000 + i, net: k.amount - k.fee, ...k };
}
const ALL_TXNS = Array.from({ length: 250 }, (_, i) => balanceTxn(i));

function answer(method: string, path: string): [number, Record<string, unknown>] {
  const q = new URL(`http://x${lastUrl}`).searchParams;
  if (method === 'GET' && path === '/v1/payment_intents/pi_ok') {
    return [200, { id: 'pi_ok', object: 'payment_intent', status: 'succeeded', amount: 2_500, amount_received: 2_500, currency: 'usd', metadata: meta, latest_charge: { id: 'ch_ok', object: 'charge', balance_transaction: { id: 'txn_ok', object: 'balance_transaction', fee: 103 } } }];
  }
  if (method === 'GET' && path === '/v1/payment_intents/pi_open') return [200, { id: 'pi_open', object: 'payment_intent', status: 'requires_payment_method', last_payment_error: null, metadata: meta }];
  if (method === 'GET' && path === '/v1/payment_intents/pi_gone') return [404, { error: { type: 'invalid_request_error', message: 'No such payment_intent' } }];
  if (method === 'GET' && path === '/v1/checkout/sessions/cs_exp') return [200, { id: 'cs_exp', object: 'checkout.session', status: 'expired', mode: 'payment', payment_status: 'unpaid', metadata: meta }];
  if (method === 'GET' && path === '/v1/checkout/sessions/cs_sub') {
    return [200, { id: 'cs_sub', object: 'checkout.session', status: 'complete', mode: 'subscription', payment_status: 'paid', amount_total: 500, currency: 'usd', subscription: 'sub_1', metadata: { kind: 'tip', tip_id: D } }];
  }
  if (method === 'GET' && path === '/v1/subscriptions/sub_1') {
    return [200, { id: 'sub_1', object: 'subscription', metadata: { kind: 'tip', tip_id: D }, latest_invoice: { id: 'in_1', object: 'invoice', status: 'paid', amount_paid: 500, currency: 'usd', payment_intent: 'pi_in1', customer: 'cus_1' } }];
  }
  if (method === 'GET' && path === '/v1/setup_intents/seti_ok') {
    return [200, { id: 'seti_ok', object: 'setup_intent', status: 'succeeded', payment_method: 'pm_1', customer: 'cus_1', metadata: { kind: 'community_join', join_id: D } }];
  }
  if (method === 'GET' && path === '/v1/setup_intents/seti_open') return [200, { id: 'seti_open', object: 'setup_intent', status: 'requires_payment_method', metadata: {} }];
  if (method === 'GET' && path === '/v1/events') {
    const after = q.get('starting_after');
    const data = after ? [event(3)] : [event(1), event(2)];
    return [200, { object: 'list', url: '/v1/events', has_more: !after, data }];
  }
  if (method === 'GET' && path === '/v1/balance_transactions') {
    const after = q.get('starting_after');
    const start = after ? ALL_TXNS.findIndex((t) => t.id === after) + 1 : 0;
    const limit = Number(q.get('limit') ?? 10);
    const data = ALL_TXNS.slice(start, start + limit);
    return [200, { object: 'list', url: '/v1/balance_transactions', has_more: start + limit < ALL_TXNS.length, data }];
  }
  return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } }];
}

// The double hands `answer` the path only; the query string is read from the request it recorded.
let lastUrl = '';
const double = stripeDouble((method, path) => {
  const r = double.seen[double.seen.length - 1]!;
  lastUrl = `${r.path}?${r.query.toString()}`;
  return answer(method, path);
});

const processor = () => new StripeProcessor(parseConfig({ STRIPE_SECRET_KEY: 'sk_test_recovery', STRIPE_API_URL: double.url(), STRIPE_WEBHOOK_SECRET: 'whsec_recovery' }), null as unknown as Db);

describe('Stripe adapter: recovery and reconciliation reads', () => {
  test('when a succeeded PaymentIntent is asked about, then its charge balance transaction is expanded and a PaymentSucceeded with the fee and a stable recheck id comes back; an open one says nothing; an unknown one is no answer, not an error', async () => {
    const [e] = await processor().retrievePaymentState({ kind: 'payment_intent', id: 'pi_ok' });
    expect(e).toMatchObject({ kind: 'PaymentSucceeded', id: 'recheck_pi_ok_payment_intent.succeeded', payment_intent_id: 'pi_ok', charge_id: 'ch_ok', amount_cents: 2_500, fee_cents: 103, ref: { kind: 'donation', id: D } });
    const r = double.seen.find((s) => s.path === '/v1/payment_intents/pi_ok')!;
    expect(arr(r.query, 'expand')).toEqual(['latest_charge.balance_transaction']);
    expect(await processor().retrievePaymentState({ kind: 'payment_intent', id: 'pi_open' })).toEqual([]);
    expect(await processor().retrievePaymentState({ kind: 'payment_intent', id: 'pi_gone' })).toEqual([]);
  });

  test('when Checkout Sessions are asked about, then an expired one is CheckoutFailed(expired) and a completed subscription one brings its first invoice as InvoicePaid', async () => {
    expect(await processor().retrievePaymentState({ kind: 'checkout_session', id: 'cs_exp' })).toEqual([expect.objectContaining({ kind: 'CheckoutFailed', reason: 'expired', session_id: 'cs_exp' })]);
    const events = await processor().retrievePaymentState({ kind: 'checkout_session', id: 'cs_sub' });
    expect(events.map((e) => e.kind)).toEqual(['CheckoutCompleted', 'InvoicePaid']);
    expect(events[1]).toMatchObject({ invoice_id: 'in_1', subscription_id: 'sub_1', amount_cents: 500, ref: { kind: 'tip', id: D } });
  });

  test('when a SetupIntent is asked about, then one that saved its card is SetupSucceeded naming its community join, and one still open says nothing', async () => {
    expect(await processor().retrievePaymentState({ kind: 'setup_intent', id: 'seti_ok' })).toEqual([
      expect.objectContaining({ kind: 'SetupSucceeded', id: 'recheck_seti_ok_setup_intent.succeeded', setup_intent_id: 'seti_ok', payment_method_id: 'pm_1', customer_id: 'cus_1', ref: { kind: 'community_join', id: D } }),
    ]);
    expect(await processor().retrievePaymentState({ kind: 'setup_intent', id: 'seti_open' })).toEqual([]);
  });

  test('when events are listed since a time, then GET /v1/events is asked with created[gte] and the handled types, every page is followed, and typed events come back', async () => {
    const out: PaymentEvent[] = [];
    for await (const e of processor().listEventsSince(new Date(1_764_000_000_000), HANDLED_EVENT_TYPES)) out.push(e);
    expect(out.map((e) => e.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    const reqs = double.seen.filter((s) => s.path === '/v1/events');
    expect(reqs).toHaveLength(2);
    expect(reqs[0]!.query.get('created[gte]')).toBe('1764000000');
    expect(arr(reqs[0]!.query, 'types')).toEqual([...HANDLED_EVENT_TYPES]);
    expect(reqs[1]!.query.get('starting_after')).toBe('evt_2');
  });

  test('when a day of balance transactions is listed, then GET /v1/balance_transactions is asked with created[gte]/[lt] and expand[]=data.source, page by page, each mapped to its movement and processor id', async () => {
    const pages: BalanceTransaction[][] = [];
    for await (const p of processor().listBalanceTransactions(new Date('2025-11-24T00:00:00Z'), new Date('2025-11-25T00:00:00Z'))) pages.push(p);
    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    const reqs = double.seen.filter((s) => s.path === '/v1/balance_transactions');
    expect(reqs).toHaveLength(3);
    expect(reqs[0]!.query.get('created[gte]')).toBe(String(Date.parse('2025-11-24T00:00:00Z') / 1000));
    expect(reqs[0]!.query.get('created[lt]')).toBe(String(Date.parse('2025-11-25T00:00:00Z') / 1000));
    expect(arr(reqs[0]!.query, 'expand')).toEqual(['data.source']);
    const first = pages[0]!.slice(0, 6).map((t) => [t.move, t.ref, t.net_cents]);
    expect(first).toEqual([
      ['charge', 'pi_0', 941],
      ['refund', 'pi_1', -400],
      ['dispute', 'pi_2', -2_500],
      ['transfer', 'tr_3', -900],
      ['transfer_reversal', 'trr_4', 900],
      ['fee', null, -200],
    ]);
  });
});
