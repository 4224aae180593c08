import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import { sandboxFee } from '../../src/integrations/payments';
import { accounts, balance } from '../../src/modules/ledger';
import { SHARE_IMAGES_QUEUE } from '../../src/modules/share-images';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { signatureFor, stripeEvent } from '../helpers/stripe';
import { chargeRefunded, dispute, piSucceeded, sandboxSucceeded, type Gift } from './donations-fixtures';

/**
 * Proof (docs/decisions/0002-exactly-once-processor-events.md): signed webhook events for many gifts — 30% duplicates, shuffled, full
 * and partial refunds and disputes mixed in, some refunds ahead of their success — sent 16 at a
 * time over HTTP leave the ledger, the counters, the events and the notifications exact.
 *
 * The suite runs a small instance (36 gifts, ~120 events: the same mix, the same races, every kind
 * of event), sized to pass with both cores busy. The measured, full-size run (300 gifts, 1,000
 * events, events/s) is `npm run bench:settle-load`, which sets SETTLE_LOAD_GIFTS.
 */
const GIFTS = Number(process.env.SETTLE_LOAD_GIFTS ?? 36);
const REFUNDED = Math.round(GIFTS * 0.4); // 120 of 300
const DISPUTED = Math.round(GIFTS * 2 / 15); // 40 of 300
const CONCURRENCY = 16;

// A seeded generator: a failure can be replayed.
let seed = 0x2f6e2b1;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
function shuffle<T>(xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

interface Plan extends Gift {
  fundraiser_id: string;
  email: string;
  checkout: boolean;
  fee: number;
  refunded: number;
  disputed: number;
}

let t: TestApp;
let server: Server;
let base: string;

beforeAll(async () => {
  // Each gift comes from its own address (X-Forwarded-For), as donors do: the global per-IP limit stays out of the way.
  t = createTestApp({ env: { TRUST_PROXY: 'loopback' } });
  // Drawing the campaigns' share images (debounced 5 s, so due while the jobs below drain) took a
  // third of this test's time on a busy machine and checks nothing here (share-images-prerender's subject).
  t.ctx.jobs.register(SHARE_IMAGES_QUEUE, async () => undefined);
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await closeDb();
});

async function inBatches<T>(items: T[], n: number, run: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await run(items[next++]!);
  }));
}

/** Starts the gifts through the API: half as PaymentIntents, half as Checkout Sessions. */
async function startGifts(fundraisers: string[], emails: string[]): Promise<Plan[]> {
  const plans: Plan[] = [];
  await inBatches(Array.from({ length: GIFTS }, (_, i) => i), CONCURRENCY, async (i) => {
    const fundraiser_id = fundraisers[i % fundraisers.length]!;
    const email = pick(emails);
    const amount = 100 + Math.floor(rand() * 50_000);
    const tip = i % 3 === 0 ? Math.floor(rand() * 2_000) : 0;
    const checkout = i % 2 === 1;
    const res = await request(t.app)
      .post(checkout ? '/api/v1/donations' : '/api/v1/payments/create-intent')
      .set('X-Forwarded-For', `10.1.${i >> 8}.${i & 255}`)
      .send({ fundraiser_id, amount_cents: amount, tip_cents: tip, donor_email: email });
    if (res.status !== 201) throw new Error(`start gift answered ${res.status}`);
    const id = res.body.data.donation_id as string;
    const pi = checkout ? `pi_load_${id.replace(/-/g, '')}` : (res.body.data.payment_intent_id as string);
    if (!checkout) await sandboxSucceeded(t, pi);
    plans.push({ donation_id: id, payment_intent_id: pi, amount_cents: amount, tip_cents: tip, currency: 'USD', fundraiser_id, email, checkout, fee: checkout ? 0 : sandboxFee(amount + tip), refunded: 0, disputed: 0 });
  });
  return plans;
}

function checkoutCompleted(p: Plan) {
  return stripeEvent('checkout.session.completed', {
    id: `cs_for_${p.donation_id}`, object: 'checkout.session', mode: 'payment', payment_status: 'paid',
    amount_total: p.amount_cents + p.tip_cents, currency: 'usd', payment_intent: p.payment_intent_id,
    metadata: { kind: 'donation', donation_id: p.donation_id },
  });
}

/** Distinct events (700 for 300 gifts): every success (Checkout sends two), refunds in one or two steps, disputes. */
function eventsFor(plans: Plan[]) {
  const events: Array<Record<string, any>> = [];
  const early: Array<Record<string, any>> = [];
  plans.forEach((p) => {
    events.push(piSucceeded(p));
    if (p.checkout) events.push(checkoutCompleted(p));
  });
  const gross = (p: Plan) => p.amount_cents + p.tip_cents;
  // 40% refunded (120 of 300): half in two steps (partial, then full), a third partial once, the rest full once.
  plans.slice(0, REFUNDED).forEach((p, i) => {
    if (i < REFUNDED / 2) {
      const part = Math.max(1, Math.floor(gross(p) / 3));
      events.push(chargeRefunded(p, part), chargeRefunded(p, gross(p)));
      p.refunded = gross(p);
    } else if (i < (REFUNDED * 5) / 6) {
      p.refunded = Math.max(1, Math.floor(gross(p) / 2));
      // A sixth of the refunded (20 of 120) arrive before anything else: the refund settles the success first.
      (i < (REFUNDED * 2) / 3 ? early : events).push(chargeRefunded(p, p.refunded));
    } else {
      p.refunded = gross(p);
      events.push(chargeRefunded(p, p.refunded));
    }
  });
  // Disputed gifts (40 of 300): three quarters closed (a third of them won), a quarter left open. A dispute names only the charge
  // and PaymentIntent, which a PaymentIntent gift records at creation (a Checkout gift only once settled).
  plans.slice(REFUNDED).filter((p) => !p.checkout).slice(0, DISPUTED).forEach((p, i) => {
    events.push(dispute(p, 'charge.dispute.created', 'needs_response'));
    if (i < (DISPUTED * 3) / 4) events.push(dispute(p, 'charge.dispute.closed', i < DISPUTED / 4 ? 'won' : 'lost'));
    p.disputed = i < DISPUTED / 4 ? 0 : gross(p);
  });
  return { early, events };
}

/** What the model says each campaign's counters end at (refunds and disputes off the campaign's part first). */
function expected(plans: Plan[]) {
  const by = new Map<string, { raised: number; tips: number; count: number; donors: Set<string> }>();
  for (const p of plans) {
    const e = by.get(p.fundraiser_id) ?? { raised: 0, tips: 0, count: 0, donors: new Set<string>() };
    const x = p.refunded + p.disputed;
    e.raised += p.amount_cents - Math.min(p.amount_cents, x);
    e.tips += p.tip_cents - Math.min(p.tip_cents, Math.max(0, x - p.amount_cents));
    if (p.refunded < p.amount_cents) {
      e.count += 1;
      e.donors.add(p.email);
    }
    by.set(p.fundraiser_id, e);
  }
  return by;
}

describe('settlement under load', () => {
  test('when signed events (30% duplicates, shuffled, refunds and disputes mixed in) arrive 16 at a time then ledger, counters, events and notifications are exact and check-ledger is clean', async () => {
    const db = testDb();
    const owner = await createUser(db);
    const fundraisers = await Promise.all(Array.from({ length: 12 }, () => createFundraiser(db, owner.id, { goal_amount_cents: 1_000_000 })));
    const emails = Array.from({ length: 120 }, (_, i) => `donor${i}@load.test`);
    const plans = await startGifts(fundraisers.map((f) => f.id), emails);

    const { early, events } = eventsFor(plans);
    const distinct = early.length + events.length;
    expect(distinct).toBeGreaterThanOrEqual(GIFTS * 2);
    const EVENTS = Math.round(distinct / 0.7); // 30% duplicates: 1,000 for 300 gifts
    const duplicates = Array.from({ length: EVENTS - distinct }, () => pick([...early, ...events]));
    const stream = [...early, ...shuffle([...events, ...duplicates])];
    expect(stream).toHaveLength(EVENTS);

    const started = Date.now();
    const statuses: number[] = [];
    await inBatches(stream, CONCURRENCY, async (ev) => {
      const payload = JSON.stringify(ev);
      const res = await fetch(`${base}/api/v1/webhooks/stripe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': await signatureFor(t, payload) },
        body: payload,
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    });
    const elapsed = Date.now() - started;
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // The line bench/settle-load.ts reports: a measurement, never asserted (the machine may be busy).
    console.log(`settle load: ${GIFTS} gifts, ${EVENTS} events in ${elapsed} ms (${Math.round((EVENTS / elapsed) * 1000)} events/s)`);

    // Each distinct event recorded once; every gift paid (or refunded) exactly once.
    expect(Number((await db('processed_webhook_events').count({ n: '*' }))[0]!.n)).toBe(distinct);
    const statusCounts = Object.fromEntries((await db('donations').select('status').count({ n: '*' }).groupBy('status')).map((r: any) => [r.status, Number(r.n)]));
    const refundedGifts = plans.filter((p) => p.refunded >= p.amount_cents).length;
    expect(refundedGifts).toBeGreaterThanOrEqual(REFUNDED / 2); // the two-step refunds at least
    expect(statusCounts).toEqual({ paid: GIFTS - refundedGifts, refunded: refundedGifts });

    const want = expected(plans);
    const rows = await db('fundraiser_counters').whereIn('id', [...want.keys()]).select('id', 'raised_cents', 'tips_cents', 'donation_count', 'donor_count');
    for (const r of rows) {
      const e = want.get(r.id)!;
      expect({ id: r.id, raised: Number(r.raised_cents), tips: Number(r.tips_cents), count: r.donation_count, donors: r.donor_count })
        .toEqual({ id: r.id, raised: e.raised, tips: e.tips, count: e.count, donors: e.donors.size });
    }
    const held = plans.reduce((s, p) => s + p.amount_cents + p.tip_cents - p.fee - p.refunded - p.disputed, 0);
    expect(await balance(db, accounts.processorBalance)).toBe(held);
    expect(await checkLedger(db)).toEqual([]);

    // Side effects: one donation.paid per gift, and (after the workers run) one notification and one receipt mail each.
    expect(Number((await db('events').where({ type: 'donation.paid' }).count({ n: '*' }))[0]!.n)).toBe(GIFTS);
    // drain() runs at most 1,000 jobs a call: dispatch, each subscriber and each mail make more.
    while ((await t.runJobs()) > 0);
    expect(Number((await db('mail_outbox').where({ template: 'donation_receipt' }).count({ n: '*' }))[0]!.n)).toBe(GIFTS);
    const hasNotifications = await db.schema.hasTable('notifications');
    if (hasNotifications) {
      const n = await db('notifications').where({ type: 'donation_received', user_id: owner.id }).count({ n: '*' });
      expect(Number(n[0]!.n)).toBe(GIFTS);
    }
    // 36 gifts took 35 s at load average 12 on 2 cores; 120 s holds at a 4x slowdown with room. The bench passes its own budget.
  }, Number(process.env.SETTLE_LOAD_TIMEOUT_MS ?? 120_000));
});
