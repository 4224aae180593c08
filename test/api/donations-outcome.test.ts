import request from 'supertest';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver } from '../helpers/stripe';
import { piSucceeded } from './donations-fixtures';

let t: TestApp;
let owner: TestUser;
let fid: string;

beforeAll(async () => {
  t = createTestApp();
  owner = await createUser(testDb());
  fid = (await createFundraiser(testDb(), owner.id)).id;
});
afterAll(closeDb);

const row = (id: string) => testDb()('donations').where({ id }).first();
const outcome = (id: string, headers: Record<string, string> = {}) => request(t.app).get(`/api/v1/donations/${id}`).set(headers);

describe('GET /donations/{id} and the Checkout return URLs', () => {
  test('when a gift is pending then paid, then its outcome reads without sign-in, with the receipt id only once paid and never an email or processor id', async () => {
    const start = await request(t.app)
      .post('/api/v1/payments/create-intent')
      .send({ fundraiser_id: fid, amount_cents: 1_500, tip_cents: 200, donor_email: 'grace@example.test', donor_name: 'Grace' });
    expect(start.status).toBe(201);
    const id = start.body.data.donation_id as string;
    const f = await testDb()('fundraisers').where({ id: fid }).first('title', 'slug');

    const pending = await outcome(id);
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({
      data: {
        id, status: 'pending', amount_cents: 1_500, tip_cents: 200, currency: 'USD',
        fundraiser: { id: fid, title: f.title, slug: f.slug }, receipt_id: null, created_at: expect.any(String), paid_at: null,
        recurring_gift_id: null,
      },
    });

    const d = await row(id);
    await deliver(t, piSucceeded({ donation_id: id, payment_intent_id: d.processor_payment_intent_id, amount_cents: 1_500, tip_cents: 200, currency: 'USD' }));
    const paid = await outcome(id);
    expect(paid.body.data).toEqual(expect.objectContaining({ status: 'paid', receipt_id: d.receipt_id, paid_at: expect.any(String) }));
    expect(JSON.stringify(paid.body)).not.toMatch(/@|pi_|ch_|cs_|Grace/);
    // The receipt id it names reads the receipt.
    expect((await request(t.app).get(`/api/v1/donations/receipt/${paid.body.data.receipt_id}`)).status).toBe(200);
    // Signed in as anyone, the same answer (auth optional).
    const stranger = await createUser(testDb());
    expect((await outcome(id, await authHeaders(t, stranger))).body).toEqual(paid.body);
  });

  test('when the id is unknown then 404; when it is not a uuid then 400', async () => {
    const unknown = await outcome('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBeDefined();
    const bad = await outcome('not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([expect.objectContaining({ path: 'params.id' })]);
  });

  test('when the outcome is read, then the public limiter (300 a minute) counts it', async () => {
    const res = await outcome('00000000-0000-4000-8000-000000000000');
    expect(res.headers['ratelimit-policy']).toBe('300;w=60');
  });

  test('when POST /donations names no return URLs, then success returns to ?donation={id} and cancel to ?donation={id}&canceled=true', async () => {
    const res = await request(t.app).post('/api/v1/donations').send({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'g@example.test' });
    expect(res.status).toBe(201);
    const d = await row(res.body.data.donation_id);
    const f = await testDb()('fundraisers').where({ id: fid }).first('slug');
    const cs = await testDb()('sandbox_objects').where({ id: d.processor_checkout_session_id }).first();
    const back = `http://site.test/fundraisers/${f.slug}?donation=${d.id}`;
    expect(cs.data).toEqual(expect.objectContaining({ success_url: back, cancel_url: `${back}&canceled=true` }));
  });
});
