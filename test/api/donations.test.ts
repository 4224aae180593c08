import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import request from 'supertest';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver } from '../helpers/stripe';
import { chargeRefunded, piSucceeded, startGift } from './donations-fixtures';

let t: TestApp;
let owner: TestUser;
let fid: string;

beforeAll(async () => {
  t = createTestApp();
  owner = await createUser(testDb());
  fid = (await createFundraiser(testDb(), owner.id)).id;
});
afterAll(closeDb);

const intent = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  request(t.app).post('/api/v1/payments/create-intent').set(headers).send({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'g@example.test', ...body });
const checkout = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  request(t.app).post('/api/v1/donations').set(headers).send({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'g@example.test', ...body });
const row = (id: string) => testDb()('donations').where({ id }).first();

describe('POST /payments/create-intent and POST /donations', () => {
  test('when a guest starts a gift then 201 with the intent, a pending row linked by metadata and the row id as idempotency key', async () => {
    const res = await intent({ tip_cents: 200, message: 'For <b>you</b><script>x()</script>' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      donation_id: expect.any(String), payment_intent_id: expect.stringMatching(/^pi_/), client_secret: expect.any(String),
      amount_cents: 1_000, tip_cents: 200, currency: 'USD', status: 'pending',
    });
    const d = await row(res.body.data.donation_id);
    expect(d).toEqual(expect.objectContaining({ status: 'pending', donor_user_id: null, donor_email: 'g@example.test', message: 'For you', processor_payment_intent_id: res.body.data.payment_intent_id }));
    const pi = await testDb()('sandbox_objects').where({ id: res.body.data.payment_intent_id }).first();
    expect(pi.idempotency_key).toBe(`donation:${d.id}`);
    // The metadata names the gift and describes it (a restored database rebuilds it from there): no address, no message.
    expect(pi.data).toEqual(expect.objectContaining({ amount: 1_200, currency: 'usd', metadata: {
      kind: 'donation', donation_id: d.id, fundraiser_id: fid, amount_cents: '1000', tip_cents: '200', currency: 'USD', anonymous: 'false',
      method: 'payment_intent', locale: 'en', receipt_id: d.receipt_id, origin: expect.stringMatching(/^[0-9a-f]{12}$/),
    } }));
  });

  test('when amounts are out of bounds or not integers then 400 with details', async () => {
    for (const body of [{ amount_cents: 99 }, { amount_cents: 10_000_001 }, { amount_cents: 100.5 }, { tip_cents: -1 }, { tip_cents: 1_000_001 }, { amount_cents: '1000' }, { fundraiser_id: 'nope' }]) {
      const res = await intent(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.details?.length).toBeGreaterThan(0);
    }
    expect((await intent({ amount_cents: 10_000_000, tip_cents: 1_000_000 })).status).toBe(201);
  });

  test('when a guest gives no donor_email then 400', async () => {
    const res = await intent({ donor_email: undefined });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'body.donor_email' })]);
  });

  test('when the campaign is not active, deleted, private or unknown then 400 FUNDRAISER_NOT_ACCEPTING_DONATIONS', async () => {
    const db = testDb();
    const ids = [
      (await createFundraiser(db, owner.id, { status: 'draft' })).id,
      (await createFundraiser(db, owner.id, { status: 'paused' })).id,
      (await createFundraiser(db, owner.id, { status: 'ended' })).id,
      (await createFundraiser(db, owner.id, { deleted_at: new Date() } as never)).id,
      (await createFundraiser(db, owner.id, { visibility: 'private' })).id,
      '00000000-0000-4000-8000-000000000000',
    ];
    for (const id of ids) {
      for (const res of [await intent({ fundraiser_id: id }), await checkout({ fundraiser_id: id })]) {
        expect({ id, status: res.status, code: res.body.code }).toEqual({ id, status: 400, code: 'FUNDRAISER_NOT_ACCEPTING_DONATIONS' });
        expect(res.body.error).toBeDefined();
      }
    }
    // Unlisted campaigns are readable with the link: they take money.
    const unlisted = await createFundraiser(db, owner.id, { visibility: 'unlisted' });
    expect((await intent({ fundraiser_id: unlisted.id })).status).toBe(201);
  });

  test('when a signed-in donor gives then the gift is attributed and receipts go to the account address', async () => {
    const donor = await createUser(testDb(), { name: 'Ada Donor' });
    const res = await intent({ donor_email: 'other@example.test' }, await authHeaders(t, donor));
    expect(res.status).toBe(201);
    expect(await row(res.body.data.donation_id)).toEqual(expect.objectContaining({ donor_user_id: donor.id, donor_email: donor.email, donor_name: 'Ada Donor' }));
  });

  test('when a signed-in caller with an unverified email uses POST /donations then 403 EMAIL_NOT_VERIFIED; create-intent still works', async () => {
    const unverified = await createUser(testDb(), { email_verified: false });
    const h = await authHeaders(t, unverified);
    const res = await checkout({}, h);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(expect.objectContaining({ code: 'EMAIL_NOT_VERIFIED', action: 'verify_email' }));
    expect((await intent({}, h)).status).toBe(201);
  });

  test('when POST /donations succeeds then 201 with the checkout url; return URLs default to the campaign page and must stay on the site', async () => {
    const f = await testDb()('fundraisers').where({ id: fid }).first('slug');
    const res = await checkout({ tip_cents: 100 });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ donation_id: expect.any(String), url: expect.stringMatching(/^http:\/\/api\.test\/sandbox\/checkout\/cs_/), status: 'pending' });
    const d = await row(res.body.data.donation_id);
    const cs = await testDb()('sandbox_objects').where({ id: d.processor_checkout_session_id }).first();
    expect(cs.data).toEqual(expect.objectContaining({ amount_total: 1_100, mode: 'payment', success_url: `http://site.test/fundraisers/${f.slug}?donation=${d.id}`, metadata: expect.objectContaining({ kind: 'donation', donation_id: d.id, method: 'checkout', amount_cents: '1000', tip_cents: '100' }) }));

    const ok = await checkout({ success_url: 'http://site.test/thanks', cancel_url: 'http://site.test/sorry' });
    expect(ok.status).toBe(201);
    for (const bad of [{ success_url: 'https://evil.test/x' }, { cancel_url: 'http://site.test.evil.test/' }, { success_url: 'not a url' }]) {
      const res2 = await checkout(bad);
      expect({ bad, status: res2.status }).toEqual({ bad, status: 400 });
    }
  });

  test('when the processor fails then 502/503 in the error shape and the gift is failed, never left pending', async () => {
    const app = createTestApp();
    app.ctx.payments.createPaymentIntent = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { type: 'StripeConnectionError' });
    };
    app.ctx.payments.createCheckoutSession = async () => {
      throw Object.assign(new Error('Invalid currency'), { type: 'StripeInvalidRequestError' });
    };
    const a = await request(app.app).post('/api/v1/payments/create-intent').send({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'x@example.test' });
    expect(a.status).toBe(503);
    expect(a.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String), code: 'PROCESSOR_UNAVAILABLE' }));
    const b = await request(app.app).post('/api/v1/donations').send({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'x@example.test' });
    expect(b.status).toBe(502);
    const failed = await testDb()('donations').where({ donor_email: 'x@example.test' }).pluck('status');
    expect(failed).toEqual(['failed', 'failed']);
  });
});

describe('CAPTCHA for guests', () => {
  let server: Server;
  let app: TestApp;
  beforeAll(async () => {
    const stub = express();
    stub.post('/siteverify', express.urlencoded({ extended: false }), (req, res) => res.json({ success: req.body.response === 'good' }));
    server = stub.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    app = createTestApp({ env: { CAPTCHA_SECRET: 's', CAPTCHA_VERIFY_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify` } });
  });
  afterAll(() => new Promise((r) => server.close(r)));

  test('when CAPTCHA is configured then a guest needs a passing captchaToken (403 captchaFailed otherwise); signed-in donors do not', async () => {
    const send = (extra: Record<string, unknown>, h: Record<string, string> = {}) =>
      request(app.app).post('/api/v1/payments/create-intent').set(h).send({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'c@example.test', ...extra });
    for (const extra of [{}, { captchaToken: 'bad' }]) {
      const res = await send(extra, { 'X-App-Attestation': 'anything' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(expect.objectContaining({ captchaFailed: true, error: expect.any(String) }));
    }
    expect((await send({ captchaToken: 'good' })).status).toBe(201);
    expect((await send({}, await authHeaders(app, await createUser(testDb())))).status).toBe(201);
  });
});

describe('receipts, notes and recent gifts', () => {
  async function paidGift(extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const res = await intent(extra, headers);
    const d = await row(res.body.data.donation_id);
    const g = { donation_id: d.id, payment_intent_id: d.processor_payment_intent_id, amount_cents: Number(d.amount_cents), tip_cents: Number(d.tip_cents), currency: d.currency };
    await deliver(t, piSucceeded(g));
    return { g, receipt: d.receipt_id as string };
  }

  test('when a gift is paid then its receipt reads without email or processor ids; anonymous gifts carry no name; pending ones 404', async () => {
    const { g, receipt } = await paidGift({ donor_name: 'Grace', tip_cents: 300 });
    const res = await request(t.app).get(`/api/v1/donations/receipt/${receipt}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      receipt_id: receipt, donation_id: g.donation_id, fundraiser: { id: fid, title: expect.any(String), slug: expect.any(String) },
      amount_cents: 1_000, tip_cents: 300, currency: 'USD', donor_name: 'Grace', paid_at: expect.any(String), note: null,
    });
    expect(JSON.stringify(res.body)).not.toMatch(/@|pi_|ch_/);
    const anon = await paidGift({ donor_name: 'Hidden', anonymous: true });
    expect((await request(t.app).get(`/api/v1/donations/receipt/${anon.receipt}`)).body.data.donor_name).toBeNull();

    const pending = await row((await intent({})).body.data.donation_id);
    expect((await request(t.app).get(`/api/v1/donations/receipt/${pending.receipt_id}`)).status).toBe(404);
    expect((await request(t.app).get('/api/v1/donations/receipt/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await request(t.app).get('/api/v1/donations/receipt/bad!id')).status).toBe(400);
  });

  test('when a gift settles then the donor receipt mail is queued once, in the donor locale, with the receipt link and "not a tax receipt"', async () => {
    const { receipt } = await paidGift({ donor_email: 'es-donor@example.test' }, { 'Accept-Language': 'es' });
    await t.runJobs();
    const mails = await testDb()('mail_outbox').where({ to: 'es-donor@example.test', template: 'donation_receipt' });
    expect(mails).toHaveLength(1);
    expect(mails[0].locale).toBe('es');
    expect(mails[0].text).toContain(`http://site.test/receipts/${receipt}`);
    expect(mails[0].text).toContain('no es un recibo fiscal');
  });

  test('when the receipt is emailed then 200 queued and an outbox mail to that address; unknown receipts 404', async () => {
    const { receipt } = await paidGift();
    const res = await request(t.app).post('/api/v1/donations/receipt/email').send({ receipt_id: receipt, email: 'friend@example.test' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'queued' } });
    expect(await testDb()('mail_outbox').where({ to: 'friend@example.test', template: 'donation_receipt' })).toHaveLength(1);
    expect((await request(t.app).post('/api/v1/donations/receipt/email').send({ receipt_id: 'A'.repeat(32), email: 'f@example.test' })).status).toBe(404);
    expect((await request(t.app).post('/api/v1/donations/receipt/email').send({ receipt_id: receipt, email: 'nope' })).status).toBe(400);
  });

  test('when a signed-in donor leaves a note then it is a comment tied to the gift; a second replaces it; deleting it retracts it (hidden, kept)', async () => {
    const donor = await createUser(testDb(), { name: 'Noter' });
    const h = await authHeaders(t, donor);
    const { g, receipt } = await paidGift({}, h);
    const first = await request(t.app).post(`/api/v1/donations/receipt/${receipt}/note`).send({ note: 'Go <i>team</i>!' });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual(expect.objectContaining({ body: 'Go team!', fundraiser_id: fid, author: expect.objectContaining({ id: donor.id, name: 'Noter' }) }));
    const second = await request(t.app).post(`/api/v1/donations/receipt/${receipt}/note`).send({ note: 'Updated note' });
    expect(second.status).toBe(201);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(await testDb()('comments').where({ donation_id: g.donation_id }).whereNull('deleted_at').pluck('body')).toEqual(['Updated note']);
    expect((await request(t.app).get(`/api/v1/donations/receipt/${receipt}`)).body.data.note).toBe('Updated note');

    expect((await request(t.app).delete(`/api/v1/comments/${first.body.data.id}`).set(h)).status).toBe(200);
    expect((await request(t.app).get(`/api/v1/donations/receipt/${receipt}`)).body.data.note).toBeNull();
    const kept = await testDb()('comments').where({ id: first.body.data.id }).first();
    expect(kept.deleted_at).not.toBeNull();
    const comments = await request(t.app).get(`/api/v1/fundraisers/${fid}/comments`);
    expect(comments.body.data.map((c: { id: string }) => c.id)).not.toContain(first.body.data.id);
  });

  test('when a note is empty, too long, on a guest gift or an unknown receipt then 400, 403 or 404', async () => {
    const donor = await createUser(testDb());
    const { receipt } = await paidGift({}, await authHeaders(t, donor));
    // A fresh app: its own Strict buckets (5/min per IP).
    const fresh = createTestApp();
    const note = (r: string, n: unknown) => request(fresh.app).post(`/api/v1/donations/receipt/${r}/note`).send({ note: n });
    expect((await note(receipt, '')).status).toBe(400);
    expect((await note(receipt, 'x'.repeat(501))).status).toBe(400);
    expect((await note(receipt, '<b></b>')).status).toBe(400);
    expect((await note(receipt, 'x'.repeat(500))).status).toBe(201);
    const guest = await paidGift();
    const res = await note(guest.receipt, 'hello');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('DONOR_ACCOUNT_REQUIRED');
    const more = createTestApp();
    expect((await request(more.app).post(`/api/v1/donations/receipt/${'B'.repeat(32)}/note`).send({ note: 'hello' })).status).toBe(404);
    // The sixth receipt write in a minute from one address: the Strict limiter.
    for (let i = 0; i < 4; i++) await request(more.app).post('/api/v1/donations/receipt/email').send({ receipt_id: receipt, email: 'a@example.test' });
    const limited = await request(more.app).post('/api/v1/donations/receipt/email').send({ receipt_id: receipt, email: 'a@example.test' });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('Rate limit exceeded for sensitive operation.');
  });

  test('when recent gifts are read then only paid gifts to public live campaigns appear, newest first, anonymous without a name', async () => {
    const f = await createFundraiser(testDb(), owner.id);
    const hidden = await createFundraiser(testDb(), owner.id, { visibility: 'unlisted' });
    const named = await startGift(t, f.id, 1_100, 0, { donor_name: 'Named', message: 'Hi' });
    const anon = await startGift(t, f.id, 1_200, 0, { donor_name: 'Secret', anonymous: true });
    await startGift(t, f.id, 1_300); // pending: never listed
    const unlisted = await startGift(t, hidden.id, 1_400);
    for (const g of [named, anon, unlisted]) await deliver(t, piSucceeded(g));
    const res = await request(t.app).get(`/api/v1/donations/recent?fundraiser_id=${f.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { id: anon.donation_id, amount_cents: 1_200, currency: 'USD', donor_name: null, message: null, created_at: expect.any(String), fundraiser: { id: f.id, title: f.title, slug: f.slug } },
      expect.objectContaining({ id: named.donation_id, donor_name: 'Named', message: 'Hi' }),
    ]);
    expect((await request(t.app).get(`/api/v1/donations/recent?fundraiser_id=${hidden.id}`)).body.data).toEqual([]);
    const all = await request(t.app).get('/api/v1/donations/recent?limit=50');
    expect(all.body.data.map((d: { id: string }) => d.id)).not.toContain(unlisted.donation_id);
    for (const q of ['limit=0', 'limit=51', 'limit=x', 'fundraiser_id=nope']) expect((await request(t.app).get(`/api/v1/donations/recent?${q}`)).status).toBe(400);
  });
});

describe('campaign totals and money rules', () => {
  test('when gifts settle then the reads show tips and the 24-hour count; a refunded gift leaves the 24-hour count', async () => {
    const f = await createFundraiser(testDb(), owner.id);
    const a = await startGift(t, f.id, 2_000, 300);
    const b = await startGift(t, f.id, 1_000, 0);
    await deliver(t, piSucceeded(a));
    await deliver(t, piSucceeded(b));
    await deliver(t, chargeRefunded(b, 1_000));
    const stats = await request(t.app).get(`/api/v1/fundraisers/${f.id}/stats`);
    expect(stats.body.data).toEqual(expect.objectContaining({ total_raised_cents: 2_000, total_tips_cents: 300, donation_count: 1, donor_count: 1 }));
    const slug = await request(t.app).get(`/api/v1/fundraisers/slug/${f.slug}`);
    expect(slug.body.data).toEqual(expect.objectContaining({ total_raised_cents: 2_000, donations_last_24h: 1 }));
  });

  test('when a campaign ever had a paid gift, even refunded, then delete answers 400 FUNDS_COLLECTED and back-to-draft is refused', async () => {
    const f = await createFundraiser(testDb(), owner.id);
    const g = await startGift(t, f.id, 1_000);
    await deliver(t, piSucceeded(g));
    await deliver(t, chargeRefunded(g, 1_000));
    expect((await testDb()('fundraiser_counters').where({ id: f.id }).first()).raised_cents).toBe(0);
    const h = await authHeaders(t, owner);
    const del = await request(t.app).delete(`/api/v1/fundraisers/${f.id}`).set(h);
    expect(del.status).toBe(400);
    expect(del.body.code).toBe('FUNDS_COLLECTED');
    const draft = await request(t.app).patch(`/api/v1/fundraisers/${f.id}`).set(h).send({ status: 'draft' });
    expect(draft.status).toBeGreaterThanOrEqual(400);
    expect(draft.body.code).toBe('FUNDS_COLLECTED');
    // A campaign whose gifts never settled can still be deleted.
    const other = await createFundraiser(testDb(), owner.id);
    await startGift(t, other.id, 1_000);
    expect((await request(t.app).delete(`/api/v1/fundraisers/${other.id}`).set(h)).status).toBe(200);
  });
});
