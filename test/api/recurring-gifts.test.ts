import request from 'supertest';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';
import { deliver, evtId } from '../helpers/stripe';
import { advance, giftRow, giftsOf, pay, shuffled, startMonthly, YEAR } from './recurring-gifts-fixtures';

/**
 * A year of monthly renewals in seconds: the sandbox clock moves a year, every renewal is charged
 * and its events reach the webhook over HTTP (signature and all), and each becomes one gift.
 */

const t = createTestApp();
serveForSandbox(t);
afterAll(closeDb);

let owner: TestUser;
let donor: TestUser;
beforeAll(async () => {
  owner = await createUser(testDb());
  donor = await createUser(testDb(), { name: 'Monthly Mia' });
});

const campaignCounters = (id: string) =>
  t.ctx.db('fundraiser_counters').where({ id }).first('donation_count', 'donor_count', 'raised_cents', 'tips_cents', 'recurring_donor_count');

describe('a year in seconds', () => {
  test('when a monthly gift is paid and the sandbox clock moves a year, then 12 renewals become 12 gifts with exact counters and ledger, and a shuffled, duplicated storm of the same invoice events changes nothing', async () => {
    const f = await createFundraiser(testDb(), owner.id);
    const headers = await authHeaders(t, donor);
    const started = await startMonthly(t, { fundraiser_id: f.id, amount_cents: 2_500, tip_cents: 300 }, headers);
    expect(started).toEqual({ donation_id: expect.any(String), url: expect.stringContaining('/sandbox/checkout/'), status: 'pending', recurring_gift_id: expect.any(String) });
    const gid = started.recurring_gift_id;
    const session = await t.ctx.db('sandbox_objects').where({ id: started.url.split('/').pop() }).first('data', 'idempotency_key');
    expect(session.data).toMatchObject({ mode: 'subscription', interval: 'month', amount_total: 2_800, metadata: { kind: 'donation', donation_id: started.donation_id, recurring_gift_id: gid } });
    expect(session.idempotency_key).toBe(`donation:${started.donation_id}`);

    await pay(t, started.url);
    const first = (await request(t.app).get(`/api/v1/donations/${started.donation_id}`)).body.data;
    expect(first).toMatchObject({ status: 'paid', amount_cents: 2_500, tip_cents: 300, recurring_gift_id: gid });
    const list = (await request(t.app).get('/api/v1/me/recurring-gifts').set(headers)).body.data;
    expect(list).toEqual([
      expect.objectContaining({ id: gid, fundraiser: { id: f.id, title: f.title, slug: f.slug }, amount_cents: 2_500, tip_cents: 300, currency: 'USD', interval: 'month', status: 'active', next_payment_at: expect.any(String), started_at: expect.any(String), canceled_at: null }),
    ]);

    const moved = await advance(t, YEAR);
    expect(moved.renewals).toEqual({ charged: 12, declined: 0, canceled: 0, skipped: 0 });

    const gifts = await giftsOf(t, gid);
    expect(gifts).toHaveLength(13);
    expect(gifts.every((g) => g.status === 'paid' && Number(g.amount_cents) === 2_500 && Number(g.tip_cents) === 300)).toBe(true);
    expect(new Set(gifts.map((g) => g.processor_invoice_id)).size).toBe(13);
    expect(new Set(gifts.map((g) => g.receipt_id)).size).toBe(13);
    const expected = { donation_count: 13, donor_count: 1, raised_cents: 32_500, tips_cents: 3_900, recurring_donor_count: 1 };
    expect(await campaignCounters(f.id)).toMatchObject(expected);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
    const history = (await request(t.app).get('/api/v1/me/donations?limit=50').set(headers)).body.data;
    expect(history.filter((d: { recurring_gift_id: string | null }) => d.recurring_gift_id === gid)).toHaveLength(13);
    const gift = (await request(t.app).get('/api/v1/me/recurring-gifts').set(headers)).body.data[0];
    expect(new Date(gift.next_payment_at).getTime()).toBeGreaterThan(new Date(moved.now).getTime());
    expect((await request(t.app).get(`/api/v1/fundraisers/${f.id}/stats`)).body.data).toMatchObject({ donation_count: 13, donor_count: 1, recurring_donor_count: 1 });

    // Every invoice event the sandbox sent, twice each, plus each invoice again under a new event id, in a shuffled order.
    const sent = await t.ctx.db('sandbox_objects').where({ kind: 'event' }).whereRaw("data->'event'->>'type' in ('invoice.paid', 'customer.subscription.updated')");
    // Both name the gift: the invoice through its subscription's metadata, the subscription through its own.
    const mine = sent.map((r) => r.data.event).filter((e) => JSON.stringify(e.data.object).includes(gid));
    const invoices = mine.filter((e) => e.type === 'invoice.paid');
    expect(invoices).toHaveLength(13);
    const storm = shuffled([...mine, ...mine, ...invoices.map((e) => ({ ...e, id: evtId() }))]);
    for (const e of storm) expect((await deliver(t, e)).status).toBe(200);
    expect(await giftsOf(t, gid)).toHaveLength(13);
    expect(await campaignCounters(f.id)).toMatchObject(expected);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
    expect((await giftRow(t, gid)).status).toBe('active');

    // One receipt per gift, each carrying the signed link to manage the monthly gift.
    await t.runJobs();
    const receipts = await t.ctx.db('mail_outbox').where({ template: 'donation_receipt' }).whereRaw('lower("to") = lower(?)', [donor.email]);
    expect(receipts).toHaveLength(13);
    expect(receipts.every((m) => m.text.includes(`/recurring-gifts/${gid}?token=`))).toBe(true);
  });
});
