import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';
import { chargeRefunded, piFailed, piSucceeded, startGift, type Gift } from './donations-fixtures';

/**
 * A storm of processor events as one test (docs/decisions/0002-exactly-once-processor-events.md): signed Stripe events over the real webhook route for a few
 * dozen gifts and tips, about 30% delivered twice, shuffled, 8 in flight; refunds may arrive
 * before their successes and PaymentIntents fail before they succeed. The end state must be
 * exact (campaign totals, gift and donor counts, tip revenue) and check-ledger clean.
 */

const t = createTestApp();
afterAll(closeDb);

type Event = ReturnType<typeof stripeEvent>;

/** A seeded generator, so a failing run can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function shuffle<T>(xs: T[], rand: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** Delivers every event with `width` in flight; answers the statuses. */
async function storm(events: Event[], width: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < events.length) {
      const ev = events[next++]!;
      statuses.push((await deliver(t, ev)).status);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return statuses;
}

/** The gift plans: what the processor says happened to each. */
type Plan = 'paid' | 'failed_then_paid' | 'partly_refunded' | 'refunded' | 'failed';
const PLANS: Plan[] = ['paid', 'failed_then_paid', 'partly_refunded', 'refunded', 'failed'];

async function newTip(cadence: 'one_time' | 'recurring', amount: number) {
  // A fresh app per tip: the tips route's limiter would refuse a burst from one client.
  const r = await request(createTestApp().app).post('/api/v1/platform/tips').send({ amount_cents: amount, cadence });
  expect(r.status).toBe(201);
  return testDb()('tips').where({ id: r.body.data.id }).first();
}

describe('a storm of signed processor events', () => {
  test('when 40 gifts and 8 tips are settled, refunded and retried by shuffled, duplicated, concurrent deliveries, then totals and counts are exact and check-ledger is clean', async () => {
    const rand = rng(15);
    const owner = await createUser(testDb());
    const campaigns = [
      await createFundraiser(testDb(), owner.id, { goal_amount_cents: 10_000_000 }),
      await createFundraiser(testDb(), owner.id, { goal_amount_cents: 10_000_000 }),
      await createFundraiser(testDb(), owner.id, { goal_amount_cents: 10_000_000 }),
    ];
    const events: Event[] = [];
    const gifts: Array<{ g: Gift; plan: Plan; fundraiserId: string; donor: string; refunded: number }> = [];
    for (let i = 0; i < 40; i += 1) {
      const fundraiserId = campaigns[i % 3]!.id;
      const donor = `donor${i % 7}@storm.test`;
      const g = await startGift(t, fundraiserId, 1_000 + 137 * i, i % 4 === 0 ? 150 : 0, { donor_email: donor });
      const plan = PLANS[i % PLANS.length]!;
      const gross = g.amount_cents + g.tip_cents;
      let refunded = 0;
      if (plan !== 'failed') events.push(piSucceeded(g));
      if (plan === 'failed' || plan === 'failed_then_paid') events.push(piFailed(g));
      if (plan === 'partly_refunded') {
        // Two partial refunds, cumulative as Stripe reports them; either may arrive first.
        events.push(chargeRefunded(g, 300), chargeRefunded(g, 500));
        refunded = 500;
      }
      if (plan === 'refunded') {
        events.push(chargeRefunded(g, gross));
        refunded = gross;
      }
      gifts.push({ g, plan, fundraiserId, donor, refunded });
    }

    const tips: Array<{ id: string; amount: number; refunded: boolean; cadence: string }> = [];
    for (let i = 0; i < 8; i += 1) {
      const amount = 300 + 50 * i;
      if (i % 2 === 0) {
        // A one-time tip through Checkout; every other one refunded in full, maybe before its success.
        const tip = await newTip('one_time', amount);
        const pi = `pi_storm_tip_${randomUUID().slice(0, 8)}`;
        const metadata = { kind: 'tip', tip_id: tip.id };
        events.push(stripeEvent('checkout.session.completed', { id: tip.processor_checkout_session_id, object: 'checkout.session', mode: 'payment', payment_status: 'paid', amount_total: amount, currency: 'usd', payment_intent: pi, metadata }));
        const refunded = i % 4 === 0;
        if (refunded) {
          events.push(stripeEvent('charge.refunded', { id: `ch_${pi}`, object: 'charge', amount, amount_refunded: amount, currency: 'usd', payment_intent: pi, metadata }));
        }
        tips.push({ id: tip.id, amount, refunded, cadence: 'one_time' });
      } else {
        // A monthly tip whose first invoice failed, then was paid with another card.
        const tip = await newTip('recurring', amount);
        const sub = `sub_storm_${randomUUID().slice(0, 8)}`;
        const invoice = { id: `in_storm_${randomUUID().slice(0, 8)}`, object: 'invoice', subscription: sub, customer: 'cus_storm', currency: 'usd', subscription_details: { metadata: { kind: 'tip', tip_id: tip.id } } };
        events.push(stripeEvent('invoice.payment_failed', { ...invoice, amount_paid: 0 }), stripeEvent('invoice.paid', { ...invoice, amount_paid: amount }));
        tips.push({ id: tip.id, amount, refunded: false, cadence: 'recurring' });
      }
    }

    // About 30% delivered twice (the same event id), then the whole lot shuffled.
    const withDuplicates = [...events, ...events.filter(() => rand() < 0.3)];
    const statuses = await storm(shuffle(withDuplicates, rand), 8);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(withDuplicates.length).toBeGreaterThan(events.length);

    // Each gift ends as its plan says.
    const rows = new Map((await testDb()('donations').whereIn('id', gifts.map((x) => x.g.donation_id))).map((r) => [r.id, r]));
    for (const { g, plan, refunded } of gifts) {
      const want = plan === 'failed' ? 'failed' : plan === 'refunded' ? 'refunded' : 'paid';
      expect({ id: g.donation_id, plan, status: rows.get(g.donation_id).status, refunded: Number(rows.get(g.donation_id).refunded_cents) }).toEqual({ id: g.donation_id, plan, status: want, refunded });
    }

    // Each campaign's totals and counts, from the plans alone.
    for (const f of campaigns) {
      const mine = gifts.filter((x) => x.fundraiserId === f.id && x.plan !== 'failed');
      const kept = mine.filter((x) => x.plan !== 'refunded');
      const want = {
        raised_cents: mine.reduce((s, x) => s + x.g.amount_cents - Math.min(x.g.amount_cents, x.refunded), 0),
        tips_cents: mine.reduce((s, x) => s + x.g.tip_cents - Math.min(x.g.tip_cents, Math.max(0, x.refunded - x.g.amount_cents)), 0),
        donation_count: kept.length,
        donor_count: new Set(kept.map((x) => x.donor)).size,
      };
      expect(await testDb()('fundraiser_counters').where({ id: f.id }).first('raised_cents', 'tips_cents', 'donation_count', 'donor_count')).toEqual(want);
    }

    // Each tip: paid once (refunded when its refund came), and tips revenue nets exactly.
    for (const tip of tips) {
      const row = await testDb()('tips').where({ id: tip.id }).first('status');
      expect({ id: tip.id, status: row.status }).toEqual({ id: tip.id, status: tip.refunded ? 'refunded' : 'paid' });
      expect(await testDb()('tip_payments').where({ tip_id: tip.id })).toHaveLength(1);
    }
    const revenue = -Number((await testDb()('ledger_entries').whereIn('tip_id', tips.map((x) => x.id)).where({ account: 'revenue:tips' }).sum({ s: 'amount_cents' }))[0].s);
    expect(revenue).toBe(tips.filter((x) => !x.refunded).reduce((s, x) => s + x.amount, 0));

    // Every event id took effect once, and the ledger agrees with every row.
    const processed = await testDb()('processed_webhook_events').whereIn('event_id', events.map((e) => e.id)).count({ n: '*' });
    expect(Number(processed[0]!.n)).toBe(events.length);
    expect(await checkLedger(testDb())).toEqual([]);
  }, 240_000);
});
