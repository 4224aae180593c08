import request from 'supertest';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';
import { advance, DAY, giftRow, giftsOf, pay, startMonthly } from './recurring-gifts-fixtures';

/** Declined renewals (past_due, the card-update mail, canceled after the last retry) and campaigns that close. */

const t = createTestApp();
serveForSandbox(t);
afterAll(closeDb);

type TestUserWithHeaders = TestUser & { headers: Record<string, string> };
let owner: TestUser;
let donor: TestUser;
let headers: Record<string, string>;
beforeAll(async () => {
  owner = await createUser(testDb());
  donor = await createUser(testDb());
  headers = await authHeaders(t, donor);
});

const mails = (template: string) => t.ctx.db('mail_outbox').where({ template }).whereRaw('lower("to") = lower(?)', [donor.email]).orderBy('created_at');
const subscriptionOf = async (giftId: string) => {
  const g = await giftRow(t, giftId);
  return (await t.ctx.db('sandbox_objects').where({ id: g.processor_subscription_id }).first('data')).data;
};
const failNext = (id: string, count?: number) => request(t.app).post(`/sandbox/subscriptions/${id}/fail-next`).send(count ? { count } : {});

async function paidGift(fundraiserId?: string) {
  const f = fundraiserId ? { id: fundraiserId } : await createFundraiser(testDb(), owner.id);
  const s = await startMonthly(t, { fundraiser_id: f.id, amount_cents: 1_200 }, headers);
  await pay(t, s.url);
  return { fundraiserId: f.id, id: s.recurring_gift_id };
}

describe('a declined renewal', () => {
  test('when a renewal declines once, then the gift is past_due and the donor gets one mail with a card-update link; the retry 3 days later settles it and it is active again', async () => {
    const { id } = await paidGift();
    const r = await failNext(id);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ subscription_id: (await giftRow(t, id)).processor_subscription_id, declines_pending: 1 });
    await advance(t, 31 * DAY);
    expect((await giftRow(t, id)).status).toBe('past_due');
    expect(await giftsOf(t, id)).toHaveLength(1);
    const listed = (await request(t.app).get('/api/v1/me/recurring-gifts').set(headers)).body.data.find((g: { id: string }) => g.id === id);
    expect(listed.status).toBe('past_due');
    await t.runJobs();
    const [failedMail, ...more] = await mails('recurring_gift_payment_failed');
    expect(more).toHaveLength(0);
    expect(failedMail.text).toContain(`/recurring-gifts/${id}?token=`);
    expect(failedMail.text).toContain('update_card=1');

    await advance(t, 3 * DAY);
    expect((await giftRow(t, id)).status).toBe('active');
    expect((await giftsOf(t, id)).map((g) => g.status)).toEqual(['paid', 'paid']);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  test("when every attempt declines, then after the processor's last retry the gift is canceled, the donor is told, and nothing more is charged", async () => {
    const { id, fundraiserId } = await paidGift();
    expect((await failNext(id, 4)).status).toBe(200);
    await advance(t, 31 * DAY);
    expect((await giftRow(t, id)).status).toBe('past_due');
    // The retries come 3, 5 and 7 days apart: 15 days covers them all.
    await advance(t, 16 * DAY);
    expect(await giftRow(t, id)).toMatchObject({ status: 'canceled', canceled_by: 'processor', canceled_at: expect.any(Date), next_payment_at: null });
    expect((await subscriptionOf(id)).status).toBe('canceled');
    expect((await t.ctx.db('fundraisers').where({ id: fundraiserId }).first()).recurring_donor_count).toBe(0);
    await t.runJobs();
    expect(await mails('recurring_gift_canceled')).toHaveLength(1);
    await advance(t, 31 * DAY);
    expect(await giftsOf(t, id)).toHaveLength(1);
    expect((await failNext(id)).status).toBe(409);
    expect((await failNext('sub_sb_unknown')).status).toBe(404);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});

describe('a campaign that closes', () => {
  test.each([
    ['ends', (id: string, by: TestUserWithHeaders) => request(t.app).patch(`/api/v1/fundraisers/${id}`).set(by.headers).send({ status: 'ended' })],
    ['is made private', (id: string, by: TestUserWithHeaders) => request(t.app).patch(`/api/v1/fundraisers/${id}`).set(by.headers).send({ visibility: 'private' })],
  ])('when the campaign %s, then its monthly gifts are canceled at once, at the processor too, each donor is told, and the holder\'s endpoint gets started and canceled', async (_what, close) => {
    const holder = await createUser(testDb());
    const f = await createFundraiser(testDb(), holder.id);
    // The holder's integration subscribes to the monthly-gift events (docs/integrators/webhooks.md: outbound webhook types).
    const [endpoint] = await t.ctx.db('webhook_endpoints')
      .insert({ user_id: holder.id, url: 'https://hooks.example.test/monthly', events: ['recurring_gift.started', 'recurring_gift.canceled'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
      .returning('id');
    const a = await paidGift(f.id);
    const before = (await mails('recurring_gift_canceled')).length;
    const res = await close(f.id, { ...holder, headers: await authHeaders(t, holder) } as TestUserWithHeaders);
    expect(res.status).toBe(200);
    await t.runJobs();
    expect(await giftRow(t, a.id)).toMatchObject({ status: 'canceled', canceled_by: 'campaign' });
    expect((await subscriptionOf(a.id)).status).toBe('canceled');
    expect((await t.ctx.db('fundraisers').where({ id: f.id }).first()).recurring_donor_count).toBe(0);
    expect(await mails('recurring_gift_canceled')).toHaveLength(before + 1);
    const events = await t.ctx.db('events').where({ type: 'recurring_gift.canceled' });
    expect(events.filter((e) => e.payload.recurring_gift_id === a.id)).toEqual([expect.objectContaining({ payload: expect.objectContaining({ canceled_by: 'campaign' }) })]);
    const sent = await t.ctx.db('webhook_deliveries').where({ endpoint_id: endpoint.id }).orderBy('created_at');
    expect(sent.map((d) => d.event_type)).toEqual(['recurring_gift.started', 'recurring_gift.canceled']);
    expect(JSON.parse(sent[0].payload)).toMatchObject({ type: 'recurring_gift.started', data: { recurring_gift_id: a.id, fundraiser_id: f.id, amount_cents: 1_200, interval: 'month' } });
    expect(sent[1].payload).not.toContain('@');
  });
});
