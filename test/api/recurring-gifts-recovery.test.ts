import request from 'supertest';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { catchUpEvents, recheckPayments } from '../../src/modules/reconciliation';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver } from '../helpers/stripe';
import { DAY, giftsOf, pay, shuffled, startMonthly } from './recurring-gifts-fixtures';

/**
 * Recovery (docs/decisions/0016-recovery-and-reconciliation.md) and monthly gifts together: a monthly gift whose processor events never arrive (the sandbox's
 * deliveries off). The recheck settles its first payment, the event catch-up turns each renewal
 * into one gift, and the real events arriving late, shuffled and twice change nothing.
 */

const t = createTestApp({ env: { SANDBOX_WEBHOOK_URL: 'off' } });
afterAll(closeDb);
const handlers = collected.webhookHandlers;

const counters = (id: string) => t.ctx.db('fundraiser_counters').where({ id }).first('donation_count', 'donor_count', 'raised_cents', 'recurring_donor_count');

test('when no event of a monthly gift is delivered, then the recheck pays its first gift and the catch-up each renewal, once, and the late storm of the same events changes nothing', async () => {
  const owner = await createUser(testDb());
  const donor = await createUser(testDb());
  const f = await createFundraiser(testDb(), owner.id);
  const started = await startMonthly(t, { fundraiser_id: f.id, amount_cents: 1_500 }, await authHeaders(t, donor));
  await pay(t, started.url);
  expect((await t.ctx.db('donations').where({ id: started.donation_id }).first('status')).status).toBe('pending');

  const rechecked = await recheckPayments(t.ctx, handlers, 0);
  expect(rechecked.failed).toBe(0);
  expect((await t.ctx.db('donations').where({ id: started.donation_id }).first('status')).status).toBe('paid');

  // Three renewals at the processor, none delivered.
  const moved = await request(t.app).post('/sandbox/clock/advance').send({ seconds: 92 * DAY });
  expect(moved.status).toBe(200);
  expect(moved.body.data.renewals.charged).toBe(3);
  expect(await giftsOf(t, started.recurring_gift_id)).toHaveLength(1);

  // The sandbox stamps its events with the real time of the move, which the catch-up lists from.
  const caught = await catchUpEvents(t.ctx, handlers);
  expect(caught.failed).toBe(0);
  const gifts = await giftsOf(t, started.recurring_gift_id);
  expect(gifts).toHaveLength(4);
  expect(gifts.every((g) => g.status === 'paid')).toBe(true);
  const expected = { donation_count: 4, donor_count: 1, raised_cents: 6_000, recurring_donor_count: 1 };
  expect(await counters(f.id)).toMatchObject(expected);
  expect(await checkLedger(t.ctx.db)).toEqual([]);

  // A second pass of both changes nothing.
  await recheckPayments(t.ctx, handlers, 0);
  await catchUpEvents(t.ctx, handlers);
  const events = (await t.ctx.db('sandbox_objects').where({ kind: 'event' }).select('data')).map((r) => r.data.event);
  expect(events.length).toBeGreaterThan(4);
  for (const e of shuffled([...events, ...events], 7)) expect((await deliver(t, e)).status).toBe(200);
  expect(await giftsOf(t, started.recurring_gift_id)).toHaveLength(4);
  expect(await counters(f.id)).toMatchObject(expected);
  expect(await checkLedger(t.ctx.db)).toEqual([]);
});
