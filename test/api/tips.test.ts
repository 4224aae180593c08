import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { getObject } from '../../src/integrations/payments/sandbox.repo';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { deliver, stripeEvent } from '../helpers/stripe';

let verifyServer: Server;
let verifyUrl: string;
beforeAll(async () => {
  const app = express();
  app.post('/siteverify', express.urlencoded({ extended: false }), (req, res) => res.json({ success: req.body.response === 'good-token' }));
  verifyServer = app.listen(0, '127.0.0.1');
  await new Promise((r) => verifyServer.once('listening', r));
  verifyUrl = `http://127.0.0.1:${(verifyServer.address() as AddressInfo).port}/siteverify`;
});
afterAll(async () => {
  await new Promise((r) => verifyServer.close(r));
  await closeDb();
});

const create = (t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  request(t.app).post('/api/v1/platform/tips').set(headers).send(body);

/** Settles a one-time tip as Stripe would: checkout.session.completed for its session. */
async function payOneTime(t: TestApp, tipId: string) {
  const tip = await t.ctx.db('tips').where({ id: tipId }).first();
  const res = await deliver(
    t,
    stripeEvent('checkout.session.completed', {
      id: tip.processor_checkout_session_id,
      object: 'checkout.session',
      mode: 'payment',
      payment_status: 'paid',
      amount_total: Number(tip.amount_cents),
      currency: 'usd',
      payment_intent: `pi_${randomUUID().slice(0, 8)}`,
      metadata: { kind: 'tip', tip_id: tipId },
    }),
  );
  expect(res.status).toBe(200);
}

describe('POST /platform/tips', () => {
  it('when a guest starts a one-time tip, then 201 with id and url, a pending tip and a payment-mode session linked to it', async () => {
    const t = createTestApp();
    const r = await create(t, { amount_cents: 500, cadence: 'one_time', email: 'guest@example.test' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ data: { id: expect.any(String), url: expect.stringContaining('/sandbox/checkout/') } });
    const tip = await t.ctx.db('tips').where({ id: r.body.data.id }).first();
    expect(tip).toMatchObject({ status: 'pending', cadence: 'one_time', user_id: null, email: 'guest@example.test', currency: 'usd' });
    const session = await getObject(t.ctx.db, tip.processor_checkout_session_id, 'checkout_session');
    expect(session!.data).toMatchObject({
      mode: 'payment',
      amount_total: 500,
      currency: 'usd',
      metadata: { kind: 'tip', tip_id: tip.id },
      success_url: `http://site.test/tip/${tip.id}`,
    });
    const stored = await t.ctx.db('sandbox_objects').where({ id: tip.processor_checkout_session_id }).first('idempotency_key');
    expect(stored.idempotency_key).toBe(tip.id);
  });

  it('when a signed-in caller starts a monthly tip, then the session is a monthly subscription and the receipt names them', async () => {
    const t = createTestApp();
    const user = await createUser(t.ctx.db, { name: 'Grace Hopper' });
    const r = await create(t, { amount_cents: 1000, cadence: 'recurring' }, await authHeaders(t, user));
    expect(r.status).toBe(201);
    const tip = await t.ctx.db('tips').where({ id: r.body.data.id }).first();
    expect(tip).toMatchObject({ user_id: user.id, email: user.email, cadence: 'recurring' });
    const session = await getObject(t.ctx.db, tip.processor_checkout_session_id, 'checkout_session');
    expect(session!.data).toMatchObject({ mode: 'subscription', interval: 'month' });
    const receipt = await request(t.app).get(`/api/v1/platform/tips/${tip.id}`);
    expect(receipt.status).toBe(200);
    expect(receipt.body.data).toMatchObject({ tipper_name: 'Grace Hopper', status: 'pending', currency: 'USD', subscription: { status: null } });
  });

  it.each([
    ['below 100', { amount_cents: 99, cadence: 'one_time' }],
    ['above 1,000,000', { amount_cents: 1_000_001, cadence: 'one_time' }],
    ['not an integer', { amount_cents: 100.5, cadence: 'one_time' }],
    ['an unknown cadence', { amount_cents: 500, cadence: 'weekly' }],
    ['a bad email', { amount_cents: 500, cadence: 'one_time', email: 'nope' }],
  ])('when the amount or body is %s, then 400', async (_what, body) => {
    const t = createTestApp();
    const r = await create(t, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('Validation failed');
  });

  it('when CAPTCHA is configured and a guest sends no or a failing token, then 403 captchaFailed; a passing token or a signed-in caller goes through', async () => {
    const t = createTestApp({ env: { CAPTCHA_SECRET: 's', CAPTCHA_VERIFY_URL: verifyUrl } });
    const none = await create(t, { amount_cents: 500, cadence: 'one_time' });
    expect(none.status).toBe(403);
    expect(none.body).toMatchObject({ captchaFailed: true });
    expect((await create(t, { amount_cents: 500, cadence: 'one_time', captchaToken: 'bad' })).status).toBe(403);
    expect((await create(t, { amount_cents: 500, cadence: 'one_time', captchaToken: 'good-token' })).status).toBe(201);
    const user = await createUser(t.ctx.db);
    expect((await create(t, { amount_cents: 500, cadence: 'one_time' }, await authHeaders(t, user))).status).toBe(201);
  });

  it('when more than 10 tips are started from one IP in a minute, then the Auth limiter answers 429', async () => {
    const t = createTestApp();
    for (let i = 0; i < 10; i += 1) expect((await create(t, { amount_cents: 100, cadence: 'one_time' })).status).toBe(201);
    const r = await create(t, { amount_cents: 100, cadence: 'one_time' });
    expect(r.status).toBe(429);
    expect(r.body.error).toBe('Too many authentication attempts, please try again later.');
  });
});

describe('GET /platform/tips/{id}', () => {
  it('when the tip is unknown, then 404; when the id is not a uuid, then 400', async () => {
    const t = createTestApp();
    expect((await request(t.app).get(`/api/v1/platform/tips/${randomUUID()}`)).status).toBe(404);
    expect((await request(t.app).get('/api/v1/platform/tips/not-a-uuid')).status).toBe(400);
  });

  it('when the tip is paid, then the receipt shows it with no email and no processor id; anonymous and guest tips name nobody', async () => {
    const t = createTestApp();
    const user = await createUser(t.ctx.db, { name: 'Ada' });
    const anon = await create(t, { amount_cents: 700, cadence: 'one_time', anonymous: true }, await authHeaders(t, user));
    await payOneTime(t, anon.body.data.id);
    const r = await request(t.app).get(`/api/v1/platform/tips/${anon.body.data.id}`);
    expect(r.body.data).toEqual({
      id: anon.body.data.id,
      amount_cents: 700,
      currency: 'USD',
      cadence: 'one_time',
      status: 'paid',
      created_at: expect.any(String),
      paid_at: expect.any(String),
      tipper_name: null,
    });
    const text = JSON.stringify(r.body);
    expect(text).not.toContain(user.email);
    expect(text).not.toMatch(/cs_|pi_|sub_|cus_/);
    const guest = await create(t, { amount_cents: 700, cadence: 'one_time', email: 'g@example.test' });
    expect((await request(t.app).get(`/api/v1/platform/tips/${guest.body.data.id}`)).body.data.tipper_name).toBeNull();
  });
});

describe('POST /platform/tips/{id}/receipt/email', () => {
  const send = (t: TestApp, id: string, email = 'someone@example.test') =>
    request(t.app).post(`/api/v1/platform/tips/${id}/receipt/email`).send({ email });

  it('when the tip is missing or unpaid, then 404', async () => {
    const t = createTestApp();
    expect((await send(t, randomUUID())).status).toBe(404);
    const pending = await create(t, { amount_cents: 500, cadence: 'one_time' });
    const r = await send(t, pending.body.data.id);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('Not found');
  });

  it('when a paid tip is emailed, then 200 sent and the mail is in the outbox once, in the caller locale', async () => {
    const t = createTestApp();
    const tip = await create(t, { amount_cents: 1234, cadence: 'one_time' });
    await payOneTime(t, tip.body.data.id);
    const to = `r-${randomUUID().slice(0, 8)}@example.test`;
    const r = await request(t.app).post(`/api/v1/platform/tips/${tip.body.data.id}/receipt/email?lang=es`).send({ email: to });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { status: 'sent' } });
    const mails = await t.ctx.db('mail_outbox').where({ to });
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ template: 'tip_receipt', locale: 'es', status: 'sent' });
    expect(mails[0].text).toContain('12,34');
    expect(mails[0].text).toContain(`http://site.test/tip/${tip.body.data.id}`);
    await t.runJobs(); // the queued job sees the mail sent and sends nothing more
    expect(await t.ctx.db('mail_outbox').where({ to })).toHaveLength(1);
  });

  it('when the mailer fails, then 200 queued and the worker sends it later', async () => {
    const t = createTestApp();
    const tip = await create(t, { amount_cents: 500, cadence: 'one_time' });
    await payOneTime(t, tip.body.data.id);
    const spy = jest.spyOn(t.ctx.mailer, 'send').mockRejectedValueOnce(new Error('smtp down'));
    const to = `q-${randomUUID().slice(0, 8)}@example.test`;
    expect((await send(t, tip.body.data.id, to)).body).toEqual({ data: { status: 'queued' } });
    await t.runJobs();
    expect(spy).toHaveBeenCalledTimes(2);
    expect((await t.ctx.db('mail_outbox').where({ to }).first()).status).toBe('sent');
  });

  it('when the receipt is emailed a 6th time, even from fresh limiter buckets and in parallel, then 429 for good without Retry-After', async () => {
    const setup = createTestApp();
    const tip = await create(setup, { amount_cents: 500, cadence: 'one_time' });
    await payOneTime(setup, tip.body.data.id);
    // Fresh apps: the Strict limiter (5/min/IP) is not what refuses here.
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(createTestApp(), tip.body.data.id)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    for (const a of refused) {
      expect(a.body.error).toBe('Receipt email limit reached for this tip');
      expect(a.headers['retry-after']).toBeUndefined();
    }
    expect((await setup.ctx.db('tips').where({ id: tip.body.data.id }).first()).receipt_email_count).toBe(5);
  });

  it('when one IP sends more than 5 receipt emails a minute, then the Strict limiter answers 429', async () => {
    const t = createTestApp();
    for (let i = 0; i < 5; i += 1) await send(t, randomUUID());
    const r = await send(t, randomUUID());
    expect(r.status).toBe(429);
    expect(r.body.error).toBe('Rate limit exceeded for sensitive operation.');
  });
});
