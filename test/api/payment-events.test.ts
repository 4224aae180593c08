import request from 'supertest';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';
import { deliver, signatureFor } from '../helpers/stripe';
import { piFailed, startGift } from './donations-fixtures';

/**
 * A PaymentIntent that failed and then succeeded settles its gift,
 * check-ledger names a reported success that left its gift unpaid, and a signed event the
 * service cannot read is refused with 400 (logged once), never a 500 retried for days.
 */

const t = createTestApp({ env: { SANDBOX_PAYOUT_DELAY_S: '0' } });
serveForSandbox(t);
afterAll(closeDb);

const campaign = (id: string) => testDb()('fundraiser_counters').where({ id }).first('raised_cents', 'tips_cents', 'donation_count', 'donor_count');

async function confirm(pi: string, outcome: 'failed' | 'succeeded') {
  const res = await request(t.app).post(`/sandbox/payment-intents/${pi}/confirm`).send({ outcome });
  expect(res.status).toBe(200);
}

describe('a PaymentIntent that failed, then succeeded', () => {
  test('when the sandbox declines the card and then a second card succeeds on the same intent, then the gift is paid and the campaign total, donor and gift counts move; check-ledger is clean', async () => {
    const owner = await createUser(testDb());
    const f = await createFundraiser(testDb(), owner.id);
    const g = await startGift(t, f.id, 4_200, 300);
    await confirm(g.payment_intent_id, 'failed');
    expect((await testDb()('donations').where({ id: g.donation_id }).first()).status).toBe('failed');
    await confirm(g.payment_intent_id, 'succeeded');
    const d = await testDb()('donations').where({ id: g.donation_id }).first();
    expect(d.status).toBe('paid');
    expect(d.paid_at).not.toBeNull();
    expect(await campaign(f.id)).toEqual({ raised_cents: 4_200, tips_cents: 300, donation_count: 1, donor_count: 1 });
    expect(await checkLedger(testDb())).toEqual([]);
  });

  test('when a success was recorded but its gift stayed failed (what the old code left behind), then check-ledger names the gift and the event', async () => {
    const owner = await createUser(testDb());
    const f = await createFundraiser(testDb(), owner.id);
    const g = await startGift(t, f.id, 1_000);
    expect((await deliver(t, piFailed(g))).status).toBe(200);
    await testDb()('processed_webhook_events').insert({ event_id: 'evt_lost_success', type: 'payment_intent.succeeded', outcome: 'ignored', kind: 'PaymentSucceeded', ref_kind: 'donation', ref_id: g.donation_id });
    expect(await checkLedger(testDb())).toEqual([
      `processor successes: donation ${g.donation_id}: the processor reported its payment succeeded (evt_lost_success) but the gift is failed`,
    ]);
    await testDb()('processed_webhook_events').where({ event_id: 'evt_lost_success' }).delete();
  });
});

describe('a signed event the service cannot read', () => {
  const post = async (payload: string) =>
    request(t.app).post('/api/v1/webhooks/stripe').set('Content-Type', 'application/json').set('Stripe-Signature', await signatureFor(t, payload)).send(payload);

  test.each([
    ['no data', { id: 'evt_nodata', type: 'payment_intent.succeeded' }],
    ['data.object null', { id: 'evt_nullobj', type: 'payment_intent.succeeded', data: { object: null } }],
    ['an array body', [{ id: 'evt_arr', type: 'payment_intent.succeeded' }]],
    ['no id', { type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } }],
    ['no type', { id: 'evt_notype', data: { object: { id: 'pi_1' } } }],
    ['an object missing its amount', { id: 'evt_noamount', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1', currency: 'usd' } } }],
    ['a refund whose amount is a string', { id: 'evt_badrefund', type: 'charge.refunded', data: { object: { id: 'ch_1', amount: 100, amount_refunded: '100', currency: 'usd' } } }],
  ])('when it has %s, then 400 in the error shape (code INVALID_EVENT)', async (_name, body) => {
    const res = await post(JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(expect.objectContaining({ error: 'Invalid event', code: 'INVALID_EVENT', message: expect.any(String) }));
  });

  test('when the same unreadable event is redelivered, then each answer is 400 and it is logged once', async () => {
    const warn = jest.spyOn(t.ctx.log, 'warn');
    const payload = JSON.stringify({ id: 'evt_broken_twice', type: 'payment_intent.succeeded', data: {} });
    expect((await post(payload)).status).toBe(400);
    expect((await post(payload)).status).toBe(400);
    const logged = warn.mock.calls.filter((c) => (c[0] as { eventId?: string })?.eventId === 'evt_broken_twice');
    expect(logged).toHaveLength(1);
    warn.mockRestore();
    expect(await testDb()('processed_webhook_events').where({ event_id: 'evt_broken_twice' }).first('outcome')).toEqual({ outcome: 'unreadable' });
  });

  test('when an unknown type arrives with a readable envelope, then 200 and it is recorded as ignored', async () => {
    const res = await post(JSON.stringify({ id: 'evt_other_type', type: 'balance.available', created: 1, data: { object: { object: 'balance' } } }));
    expect(res.status).toBe(200);
    expect(await testDb()('processed_webhook_events').where({ event_id: 'evt_other_type' }).first('outcome', 'kind')).toEqual({ outcome: 'ignored', kind: 'Unhandled' });
  });
});
