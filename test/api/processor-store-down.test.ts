import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';

/**
 * The sandbox processor keeps its objects in this service's database, so while the database is
 * away its calls fail with the database's errors. That outage is the database's: 503
 * DATABASE_UNAVAILABLE with Retry-After, as every other request then answers, not the
 * processor's PROCESSOR_UNAVAILABLE (which a gift start answered without Retry-After).
 */
afterAll(closeDb);

/** What pg throws for a database that is away, as the sandbox's own reads and writes would. */
const away = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const databaseOutage = [503, 'DATABASE_UNAVAILABLE', expect.stringMatching(/^\d+$/)];

test('when a gift start reaches the sandbox while the database is away, then 503 DATABASE_UNAVAILABLE with Retry-After and the gift is failed', async () => {
  const t = createTestApp();
  t.ctx.payments.createPaymentIntent = async () => {
    throw away();
  };
  const owner = await createUser(testDb());
  const f = await createFundraiser(testDb(), owner.id);
  const a = await request(t.app).post('/api/v1/payments/create-intent').send({ fundraiser_id: f.id, amount_cents: 1_000, donor_email: 'store-down@example.test' });
  expect([a.status, a.body.code, a.headers['retry-after']]).toEqual(databaseOutage);
  expect(await testDb()('donations').where({ donor_email: 'store-down@example.test' }).pluck('status')).toEqual(['failed']);
});

test('when a webhook asks the sandbox while the database is away, then 503 DATABASE_UNAVAILABLE with Retry-After and nothing is recorded', async () => {
  const t = createTestApp();
  t.ctx.payments.feeForPaymentIntent = async () => {
    throw away();
  };
  t.ctx.payments.paymentIntentRef = async () => {
    throw away();
  };
  const owner = await createUser(testDb());
  const f = await createFundraiser(testDb(), owner.id);
  const gift = await createGift(testDb(), { fundraiserId: f.id, status: 'pending', amount: 2500 });
  const pi = `pi_store_${gift.id.slice(0, 8)}`;
  await testDb()('donations').where({ id: gift.id }).update({ processor_payment_intent_id: pi });
  const event = stripeEvent('payment_intent.succeeded', {
    id: pi, object: 'payment_intent', amount: 2500, amount_received: 2500, currency: 'usd', status: 'succeeded',
    latest_charge: `ch_store_${gift.id.slice(0, 8)}`, metadata: { kind: 'donation', donation_id: gift.id },
  });
  const r = await deliver(t, event);
  expect([r.status, r.body.code, r.headers['retry-after']]).toEqual(databaseOutage);
  expect((await testDb()('donations').where({ id: gift.id }).first('status')).status).toBe('pending');
  expect(await testDb()('processed_webhook_events').where({ event_id: event.id }).first()).toBeUndefined();
});
