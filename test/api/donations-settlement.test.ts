import request from 'supertest';
import { accounts, balance } from '../../src/modules/ledger';
import { checkLedger } from '../../src/modules/integrity';
import { sandboxFee } from '../../src/integrations/payments';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';
import { chargeRefunded, dispute, piFailed, piSucceeded, sandboxSucceeded, startGift } from './donations-fixtures';

let t: TestApp;
let ownerId: string;

beforeAll(async () => {
  t = createTestApp();
  ownerId = (await createUser(testDb())).id;
});
afterAll(closeDb);

const row = (id: string) => testDb()('donations').where({ id }).first();
const campaign = (id: string) => testDb()('fundraiser_counters').where({ id }).first('raised_cents', 'tips_cents', 'donation_count', 'donor_count', 'goal_reached_at');
const ledgerOf = (donationId: string) => testDb()('ledger_entries').where({ donation_id: donationId });

async function expectClean() {
  expect(await checkLedger(testDb())).toEqual([]);
}

describe('settlement through the webhook', () => {
  test('when payment_intent.succeeded arrives then the gift is paid once: ledger group with the fee, counters, events; a duplicate and a second event change nothing', async () => {
    const f = await createFundraiser(testDb(), ownerId, { goal_amount_cents: 3_000 });
    const g = await startGift(t, f.id, 2_500, 500);
    await sandboxSucceeded(t, g.payment_intent_id);
    const ev = piSucceeded(g);
    expect((await deliver(t, ev)).status).toBe(200);
    expect((await deliver(t, ev)).body).toEqual({ received: true });
    // The same payment announced by another event id settles nothing twice.
    expect((await deliver(t, piSucceeded(g))).status).toBe(200);

    const d = await row(g.donation_id);
    expect(d).toEqual(expect.objectContaining({ status: 'paid', processor_fee_cents: sandboxFee(3_000) }));
    expect(d.paid_at).not.toBeNull();
    expect(await campaign(f.id)).toEqual(expect.objectContaining({ raised_cents: 2500, tips_cents: 500, donation_count: 1, donor_count: 1, goal_reached_at: null }));
    expect(await balance(testDb(), accounts.campaign(f.id))).toBe(-2_500 + sandboxFee(3_000));
    expect(await balance(testDb(), accounts.tips)).toBeLessThanOrEqual(-500);
    const paidEvents = await testDb()('events').where({ type: 'donation.paid' }).whereRaw(`payload->>'donation_id' = ?`, [g.donation_id]);
    expect(paidEvents).toHaveLength(1);
    await expectClean();
  });

  test('when the goal is reached then goal_reached_at is stamped and fundraiser.goal_reached is emitted once', async () => {
    const f = await createFundraiser(testDb(), ownerId, { goal_amount_cents: 1_000 });
    const g = await startGift(t, f.id, 1_000);
    await deliver(t, piSucceeded(g));
    expect((await campaign(f.id)).goal_reached_at).not.toBeNull();
    const reached = await testDb()('events').where({ type: 'fundraiser.goal_reached' }).whereRaw(`payload->>'fundraiser_id' = ?`, [f.id]);
    expect(reached).toHaveLength(1);
  });

  test('when the amount or the currency differs from the gift then nothing settles, the answer is 200, the outcome ignored and check-ledger names the unsettled success until the right one settles it', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const g = await startGift(t, f.id, 2_000);
    const wrongAmount = piSucceeded(g, { amount: 1_999, amount_received: 1_999 });
    const wrongCurrency = piSucceeded(g, { currency: 'eur' });
    for (const ev of [wrongAmount, wrongCurrency]) {
      expect((await deliver(t, ev)).status).toBe(200);
      expect(await testDb()('processed_webhook_events').where({ event_id: ev.id }).first('outcome')).toEqual({ outcome: 'ignored' });
    }
    expect((await row(g.donation_id)).status).toBe('pending');
    expect(await ledgerOf(g.donation_id)).toHaveLength(0);
    expect(await checkLedger(testDb())).toEqual([
      `processor successes: donation ${g.donation_id}: the processor reported its payment succeeded (${wrongAmount.id}) but the gift is pending`,
      `processor successes: donation ${g.donation_id}: the processor reported its payment succeeded (${wrongCurrency.id}) but the gift is pending`,
    ]);
    await deliver(t, piSucceeded(g));
    await expectClean();
  });

  test('when a PaymentIntent fails then the pending gift is failed, and a later success (another card) settles it as paid', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const g = await startGift(t, f.id);
    await deliver(t, piFailed(g));
    expect((await row(g.donation_id)).status).toBe('failed');
    await deliver(t, piSucceeded(g));
    expect((await row(g.donation_id)).status).toBe('paid');
    expect(await campaign(f.id)).toEqual(expect.objectContaining({ raised_cents: g.amount_cents, donation_count: 1, donor_count: 1 }));
    // A late failure of the earlier attempt changes nothing.
    await deliver(t, piFailed(g));
    expect((await row(g.donation_id)).status).toBe('paid');
    await expectClean();
  });

  test('when a partial refund then a full refund arrive then totals drop by each newly refunded amount and the gift ends refunded; an older refund event late changes nothing', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const g = await startGift(t, f.id, 4_000, 1_000);
    await deliver(t, piSucceeded(g));
    const early = chargeRefunded(g, 1_500);
    await deliver(t, early);
    expect(await campaign(f.id)).toEqual(expect.objectContaining({ raised_cents: 2500, tips_cents: 1000, donation_count: 1 }));
    expect((await row(g.donation_id)).status).toBe('paid');
    await deliver(t, chargeRefunded(g, 5_000));
    expect(await campaign(f.id)).toEqual(expect.objectContaining({ raised_cents: 0, tips_cents: 0, donation_count: 0, donor_count: 0 }));
    const d = await row(g.donation_id);
    expect(d).toEqual(expect.objectContaining({ status: 'refunded', refunded_cents: 5000 }));
    await deliver(t, chargeRefunded(g, 1_500));
    expect((await campaign(f.id)).raised_cents).toBe(0);
    await expectClean();
  });

  test('when a refund arrives before its success then the success is settled first from the charge and the later success changes nothing', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const g = await startGift(t, f.id, 3_000);
    await deliver(t, chargeRefunded(g, 1_000));
    expect(await row(g.donation_id)).toEqual(expect.objectContaining({ status: 'paid', refunded_cents: 1000 }));
    await deliver(t, piSucceeded(g));
    expect(await campaign(f.id)).toEqual(expect.objectContaining({ raised_cents: 2000, donation_count: 1, donor_count: 1 }));
    await expectClean();
  });

  test('when a dispute opens then its amount leaves the totals; won restores it, lost keeps it out', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const won = await startGift(t, f.id, 2_000);
    const lost = await startGift(t, f.id, 3_000);
    await deliver(t, piSucceeded(won));
    await deliver(t, piSucceeded(lost));
    await deliver(t, dispute(won, 'charge.dispute.created', 'needs_response'));
    await deliver(t, dispute(lost, 'charge.dispute.created', 'needs_response'));
    expect(await campaign(f.id)).toEqual(expect.objectContaining({ raised_cents: 0, donation_count: 2 }));
    expect((await row(won.donation_id)).dispute_status).toBe('open');
    await deliver(t, dispute(won, 'charge.dispute.closed', 'won'));
    await deliver(t, dispute(lost, 'charge.dispute.closed', 'lost'));
    expect((await campaign(f.id)).raised_cents).toBe(2000);
    expect((await row(won.donation_id)).dispute_status).toBe('won');
    expect((await row(lost.donation_id)).dispute_status).toBe('lost');
    await expectClean();
  });

  test('when a dispute arrives before the success then the gift settles first and the dispute applies', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const g = await startGift(t, f.id, 2_000);
    await deliver(t, dispute(g, 'charge.dispute.created', 'needs_response'));
    await deliver(t, piSucceeded(g));
    expect(await row(g.donation_id)).toEqual(expect.objectContaining({ status: 'paid', dispute_status: 'open', disputed_cents: 2000 }));
    expect((await campaign(f.id)).raised_cents).toBe(0);
    await expectClean();
  });

  test('when a Checkout gift is disputed before any event links its PaymentIntent then the processor metadata finds the gift, which settles first', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const res = await request(t.app).post('/api/v1/donations').send({ fundraiser_id: f.id, amount_cents: 3_000, donor_email: 'd@example.test' });
    expect(res.status).toBe(201);
    const donationId = res.body.data.donation_id as string;
    // The PaymentIntent Checkout made at payment time, carrying the session's metadata; no event named it yet.
    const pi = await t.ctx.payments.createPaymentIntent({ amount_cents: 3_000, currency: 'usd', metadata: { kind: 'donation', donation_id: donationId }, idempotencyKey: `cs-pi-${donationId}` });
    const g = { donation_id: donationId, payment_intent_id: pi.id, amount_cents: 3_000, tip_cents: 0, currency: 'USD' };
    expect((await deliver(t, dispute(g, 'charge.dispute.created', 'needs_response'))).status).toBe(200);
    expect(await row(donationId)).toEqual(expect.objectContaining({ status: 'paid', dispute_status: 'open', disputed_cents: 3000 }));
    expect((await campaign(f.id)).raised_cents).toBe(0);
    await expectClean();
  });

  test('when Checkout completes paid, unpaid, async succeeds or expires then only paid sessions settle', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const session = (g: { donation_id: string }, type: string, payment_status: string, id: string) =>
      stripeEvent(type, { id, object: 'checkout.session', mode: 'payment', amount_total: 1_500, currency: 'usd', payment_status, payment_intent: `pi_for_${id}`, metadata: { kind: 'donation', donation_id: g.donation_id } });
    const make = async () => {
      const res = await request(t.app).post('/api/v1/donations').send({ fundraiser_id: f.id, amount_cents: 1_500, donor_email: 'c@example.test' });
      expect(res.status).toBe(201);
      const d = await row(res.body.data.donation_id);
      return { donation_id: d.id as string, cs: d.processor_checkout_session_id as string };
    };
    const paid = await make();
    await deliver(t, session(paid, 'checkout.session.completed', 'paid', paid.cs));
    expect((await row(paid.donation_id)).status).toBe('paid');

    const asyncOk = await make();
    await deliver(t, session(asyncOk, 'checkout.session.completed', 'unpaid', asyncOk.cs));
    expect((await row(asyncOk.donation_id)).status).toBe('pending');
    await deliver(t, session(asyncOk, 'checkout.session.async_payment_succeeded', 'paid', asyncOk.cs));
    expect((await row(asyncOk.donation_id)).status).toBe('paid');

    const expired = await make();
    await deliver(t, session(expired, 'checkout.session.expired', 'unpaid', expired.cs));
    expect((await row(expired.donation_id)).status).toBe('failed');
    expect((await campaign(f.id)).donation_count).toBe(2);
  });

  test('when an object of another kind arrives then the donations module leaves it alone', async () => {
    const ev = stripeEvent('checkout.session.completed', { id: 'cs_other', mode: 'payment', amount_total: 100, currency: 'usd', payment_status: 'paid', metadata: { kind: 'community_join', join_id: 'x' } });
    expect((await deliver(t, ev)).status).toBe(200);
    expect(await testDb()('processed_webhook_events').where({ event_id: ev.id }).first('outcome')).toEqual({ outcome: 'ignored' });
  });

  test('when gifts settle then /platform/numbers sums the ledger-backed campaign counters', async () => {
    const before = (await request(createTestApp().app).get('/api/v1/platform/numbers')).body;
    const f = await createFundraiser(testDb(), ownerId);
    const g = await startGift(t, f.id, 4_321);
    await deliver(t, piSucceeded(g));
    // A fresh app: the numbers are cached for five minutes per process.
    const after = (await request(createTestApp().app).get('/api/v1/platform/numbers')).body;
    expect(after.total_raised_cents - before.total_raised_cents).toBe(4_321);
    expect(after.donations_total - before.donations_total).toBe(1);
  });

  test('when the same event is delivered to two app instances at once then it settles once', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const other = createTestApp();
    const gifts = await Promise.all(Array.from({ length: 8 }, () => startGift(t, f.id, 1_000)));
    const events = gifts.map((g) => piSucceeded(g));
    const answers = await Promise.all(events.flatMap((ev) => [deliver(t, ev), deliver(other, ev)]));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(await campaign(f.id)).toEqual(expect.objectContaining({ raised_cents: 8000, donation_count: 8 }));
    const groups = await testDb()('ledger_entries').whereIn('donation_id', gifts.map((g) => g.donation_id)).countDistinct({ n: 'group_id' });
    expect(Number(groups[0].n)).toBe(8);
    await expectClean();
  });
});

describe('donations_last_24h', () => {
  const last24h = async (slug: string) => (await request(t.app).get(`/api/v1/fundraisers/slug/${slug}`)).body.data.donations_last_24h;

  test('when gifts settle, fail, are refunded in full or in part, or were paid over a day ago, then only completed gifts of the last 24 hours count', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const [a, b, c, d, e] = await Promise.all([1, 2, 3, 4, 5].map(() => startGift(t, f.id, 1_000)));
    for (const g of [a, b, c, d]) await deliver(t, piSucceeded(g));
    await deliver(t, piFailed(e));
    expect(await last24h(f.slug)).toBe(4);
    await deliver(t, chargeRefunded(b, 1_000)); // in full: no longer a completed gift
    await deliver(t, chargeRefunded(c, 400)); // in part: still completed
    expect(await last24h(f.slug)).toBe(3);
    // A gift paid 25 hours ago (moved by hand) leaves the window; its bucket moves with it.
    await testDb()('donations').where({ id: d.donation_id }).update({ paid_at: testDb().raw("now() - interval '25 hours'") });
    expect(await last24h(f.slug)).toBe(2);
    await expectClean();
  });
});
