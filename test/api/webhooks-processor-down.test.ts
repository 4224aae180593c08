import net from 'node:net';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';

/**
 * An event that must ask the processor before it can settle (here: the fee of a PaymentIntent the
 * event does not carry) while the processor cannot be reached answers 503 with Retry-After, never a
 * 500, and records nothing: the processor's redelivery settles it once it is back.
 */

afterAll(closeDb);

/** A loopback port with nothing listening: connections are refused at once. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let t: ReturnType<typeof createTestApp>;
beforeAll(async () => {
  t = createTestApp({
    env: { STRIPE_SECRET_KEY: 'sk_test_down', STRIPE_API_URL: `http://127.0.0.1:${await closedPort()}`, STRIPE_WEBHOOK_SECRET: 'whsec_down' },
  });
});

test('when a verified event needs the processor and it is unreachable, then the webhook answers 503 with Retry-After and the gift stays pending', async () => {
  const owner = await createUser(testDb());
  const f = await createFundraiser(testDb(), owner.id);
  const gift = await createGift(testDb(), { fundraiserId: f.id, status: 'pending', amount: 2500 });
  const pi = `pi_down_${gift.id.slice(0, 8)}`;
  await testDb()('donations').where({ id: gift.id }).update({ processor_payment_intent_id: pi });
  const event = stripeEvent('payment_intent.succeeded', {
    id: pi,
    object: 'payment_intent',
    amount: 2500,
    amount_received: 2500,
    currency: 'usd',
    status: 'succeeded',
    latest_charge: `ch_down_${gift.id.slice(0, 8)}`,
    metadata: { kind: 'donation', donation_id: gift.id },
  });
  const r = await deliver(t, event);
  expect(r.status).toBe(503);
  expect(r.headers['retry-after']).toBe('30');
  expect(r.body).toMatchObject({ error: 'Payment processor unavailable', code: 'PROCESSOR_UNAVAILABLE' });
  expect((await testDb()('donations').where({ id: gift.id }).first('status')).status).toBe('pending');
  expect(await testDb()('processed_webhook_events').where({ event_id: event.id }).first()).toBeUndefined();
});
