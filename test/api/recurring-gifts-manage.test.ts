import request from 'supertest';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';
import { advance, DAY, giftRow, giftsOf, pay, startMonthly } from './recurring-gifts-fixtures';

/** Changing, pausing and canceling a monthly gift, as its signed-in donor and through the signed link a guest gets by mail. */

const t = createTestApp();
serveForSandbox(t);
afterAll(closeDb);

let owner: TestUser;
let donor: TestUser;
let other: TestUser;
let headers: Record<string, string>;
beforeAll(async () => {
  owner = await createUser(testDb());
  donor = await createUser(testDb(), { name: 'Monthly Max' });
  other = await createUser(testDb());
  headers = await authHeaders(t, donor);
});

const subscriptionOf = async (giftId: string) => {
  const g = await giftRow(t, giftId);
  return (await t.ctx.db('sandbox_objects').where({ id: g.processor_subscription_id }).first('data')).data;
};
const mails = (to: string, template: string) => t.ctx.db('mail_outbox').where({ template }).whereRaw('lower("to") = lower(?)', [to]).orderBy('created_at');
/** The subscription once the sandbox's after-the-call webhook deliveries are done (Stripe's come the same way: later). */
const afterDeliveries = async (giftId: string) => {
  for (let i = 0; i < 1_200; i += 1) {
    const [{ n }] = await t.ctx.db('sandbox_objects').where({ kind: 'event' }).whereRaw("data->>'delivered_at' is null").count({ n: '*' });
    if (Number(n) === 0) return subscriptionOf(giftId);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('sandbox deliveries still pending after 2 minutes');
};

async function paidGift(body: Record<string, unknown> = {}, h: Record<string, string> = headers) {
  const f = await createFundraiser(testDb(), owner.id);
  const s = await startMonthly(t, { fundraiser_id: f.id, amount_cents: 1_000, ...body }, h);
  await pay(t, s.url);
  return { f, id: s.recurring_gift_id };
}

describe('POST /donations with interval', () => {
  test('when the interval is not month or the campaign does not take gifts, then 400', async () => {
    const f = await createFundraiser(testDb(), owner.id, { status: 'ended' });
    const bad = await request(t.app).post('/api/v1/donations').set(headers).send({ fundraiser_id: f.id, amount_cents: 1_000, interval: 'year' });
    expect(bad.status).toBe(400);
    const closed = await request(t.app).post('/api/v1/donations').set(headers).send({ fundraiser_id: f.id, amount_cents: 1_000, interval: 'month' });
    expect(closed.body).toMatchObject({ code: 'FUNDRAISER_NOT_ACCEPTING_DONATIONS' });
  });

  test('when a monthly gift starts, then the holder is notified once (recurring_gift_started) and the gift is listed only for its donor', async () => {
    const { f, id } = await paidGift();
    await t.runJobs();
    const notes = await t.ctx.db('notifications').where({ user_id: owner.id, type: 'recurring_gift_started' });
    expect(notes.filter((n) => n.metadata.recurring_gift_id === id)).toHaveLength(1);
    expect((await t.ctx.db('fundraisers').where({ id: f.id }).first()).recurring_donor_count).toBe(1);
    const theirs = (await request(t.app).get('/api/v1/me/recurring-gifts').set(await authHeaders(t, other))).body.data;
    expect(theirs).toEqual([]);
    const another = await request(t.app).patch(`/api/v1/me/recurring-gifts/${id}`).set(await authHeaders(t, other)).send({ paused: true });
    expect(another.status).toBe(404);
    expect((await request(t.app).delete(`/api/v1/me/recurring-gifts/${id}`).set(await authHeaders(t, other))).status).toBe(404);
    expect((await request(t.app).get('/api/v1/me/recurring-gifts')).status).toBe(401);
  });
});

describe('changes take effect from the next payment', () => {
  test('when the donor pauses, then a month passes without a charge; when they resume with a new amount and tip, then the next gift carries them', async () => {
    const { id } = await paidGift({ tip_cents: 100 });
    const paused = await request(t.app).patch(`/api/v1/me/recurring-gifts/${id}`).set(headers).send({ paused: true });
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ id, status: 'paused', amount_cents: 1_000, tip_cents: 100 });
    expect((await subscriptionOf(id)).pause_collection).toEqual({ behavior: 'void', resumes_at: null });
    await advance(t, 31 * DAY);
    expect(await giftsOf(t, id)).toHaveLength(1);
    expect((await giftRow(t, id)).status).toBe('paused');

    const resumed = await request(t.app).patch(`/api/v1/me/recurring-gifts/${id}`).set(headers).send({ paused: false, amount_cents: 2_000, tip_cents: 0 });
    expect(resumed.body.data).toMatchObject({ status: 'active', amount_cents: 2_000, tip_cents: 0 });
    const sub = await afterDeliveries(id);
    expect(sub.pause_collection).toBeNull();
    expect(sub.items.data[0].price.unit_amount).toBe(2_000);
    expect((await giftRow(t, id)).synced_version).toBe(2);
    // Nothing already charged changes.
    expect((await giftsOf(t, id)).map((g) => [Number(g.amount_cents), Number(g.tip_cents)])).toEqual([[1_000, 100]]);
    await advance(t, 31 * DAY);
    expect((await giftsOf(t, id)).map((g) => [Number(g.amount_cents), Number(g.tip_cents), g.status])).toEqual([
      [1_000, 100, 'paid'],
      [2_000, 0, 'paid'],
    ]);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  test('when the body is empty or out of bounds, then 400; once canceled, a change is 409', async () => {
    const { id } = await paidGift();
    for (const body of [{}, { amount_cents: 99 }, { tip_cents: -1 }, { paused: 'yes' }]) {
      expect((await request(t.app).patch(`/api/v1/me/recurring-gifts/${id}`).set(headers).send(body)).status).toBe(400);
    }
    const del = await request(t.app).delete(`/api/v1/me/recurring-gifts/${id}`).set(headers).send({ reason: 'Moving on' });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ status: 'canceled', canceled_at: expect.any(String), next_payment_at: null });
    expect(await giftRow(t, id)).toMatchObject({ canceled_by: 'donor', cancel_reason: 'Moving on' });
    expect((await subscriptionOf(id)).status).toBe('canceled');
    const late = await request(t.app).patch(`/api/v1/me/recurring-gifts/${id}`).set(headers).send({ amount_cents: 5_000 });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('RECURRING_GIFT_CANCELED');
    await advance(t, 31 * DAY);
    expect(await giftsOf(t, id)).toHaveLength(1);
  });
});

describe('guests manage through the signed link in each receipt', () => {
  test('when a guest opens the link from the receipt, then they can read, change and cancel; a wrong or missing token is 404', async () => {
    const email = `guest-${Date.now()}@example.test`;
    const { id } = await paidGift({ donor_email: email }, {});
    const other = await paidGift({ donor_email: `x-${email}` }, {});
    await t.runJobs();
    const [receipt] = await mails(email, 'donation_receipt');
    const token = decodeURIComponent(/recurring-gifts\/[0-9a-f-]+\?token=([^\s&]+)/.exec(receipt.text)![1]!);
    const read = await request(t.app).get(`/api/v1/recurring-gifts/${id}`).query({ token });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id, status: 'active', amount_cents: 1_000 });
    expect((await request(t.app).get(`/api/v1/recurring-gifts/${other.id}`).query({ token })).status).toBe(404);
    expect((await request(t.app).get(`/api/v1/recurring-gifts/${id}`).query({ token: `${token.slice(0, -2)}xx` })).status).toBe(404);
    expect((await request(t.app).get(`/api/v1/recurring-gifts/${id}`)).status).toBe(400);
    const changed = await request(t.app).patch(`/api/v1/recurring-gifts/${id}`).query({ token }).send({ amount_cents: 1_500 });
    expect(changed.body.data).toMatchObject({ amount_cents: 1_500 });
    const canceled = await request(t.app).delete(`/api/v1/recurring-gifts/${id}`).query({ token });
    expect(canceled.body.data.status).toBe('canceled');
    expect((await subscriptionOf(id)).status).toBe('canceled');
  });
});
