import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { makeDue } from '../../src/jobs/admin';
import { serveForSandbox } from '../helpers/listening';

afterAll(closeDb);

/**
 * The sandbox processor through its own pages and controls, with the app listening on a real
 * port so every event reaches POST /api/v1/webhooks/stripe over HTTP and its signature check.
 */

const t = createTestApp({ env: { SANDBOX_PAYOUT_DELAY_S: '0' } });
serveForSandbox(t);

type Obj = Record<string, any>;

/** What the webhook route recorded (signature accepted), by event type, for one object id. */
async function received(objectId: string): Promise<Obj[]> {
  const rows = await t.ctx.db('sandbox_objects').where({ kind: 'event' }).whereRaw("data->'event'->'data'->'object'->>'id' = ?", [objectId]);
  const processed = await t.ctx.db('processed_webhook_events').whereIn('event_id', rows.map((r) => r.id)).select('event_id');
  const seen = new Set(processed.map((p) => p.event_id));
  return rows.filter((r) => seen.has(r.id)).map((r) => r.data.event);
}

async function session(metadata: Obj = { kind: 'donation', donation_id: 'd-1' }, mode: 'payment' | 'subscription' | 'setup' = 'payment') {
  return t.ctx.payments.createCheckoutSession({
    mode,
    currency: 'USD',
    line_items: [{ name: 'Gift to <b>"Clean water"</b>', amount_cents: 2500 }],
    interval: mode === 'subscription' ? 'month' : undefined,
    metadata,
    success_url: 'http://site.test/fundraisers/water?donation=d-1',
    cancel_url: 'http://site.test/fundraisers/water?cancelled=1',
    customer_email: 'guest@example.test',
    idempotencyKey: `k-${Math.random()}`,
  });
}

describe('sandbox checkout', () => {
  test('when the checkout page is opened, then it shows the line items, amount, currency and mode escaped, with the two forms and a CSP that lets the forms return to the site', async () => {
    const s = await session();
    expect(s.url).toBe(`http://api.test/sandbox/checkout/${s.id}`);
    const res = await request(t.app).get(`/sandbox/checkout/${s.id}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('Gift to &lt;b&gt;&quot;Clean water&quot;&lt;/b&gt;');
    expect(res.text).not.toContain('<b>"Clean water"');
    expect(res.text).toContain('25.00 USD');
    expect(res.text).toContain('One-time payment');
    expect(res.text).toContain(`action="/sandbox/checkout/${s.id}/complete"`);
    expect(res.text).toContain(`action="/sandbox/checkout/${s.id}/cancel"`);
    expect(res.headers['content-security-policy']).toContain("form-action 'self' http://site.test");
  });

  test('when the complete form is posted in payment mode, then a succeeded PaymentIntent with its fee exists, both events reached the webhook signed, and the answer is 303 to the success URL', async () => {
    const s = await session({ kind: 'donation', donation_id: 'd-42' });
    const res = await request(t.app).post(`/sandbox/checkout/${s.id}/complete`).type('form').send('');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('http://site.test/fundraisers/water?donation=d-1');

    const [completed] = await received(s.id);
    expect(completed).toMatchObject({
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: { object: 'checkout.session', id: s.id, payment_status: 'paid', amount_total: 2500, currency: 'usd', customer_email: 'guest@example.test', metadata: { kind: 'donation', donation_id: 'd-42' } } },
    });
    expect(completed!.id).toMatch(/^evt_/);
    expect(typeof completed!.created).toBe('number');
    const piId = completed!.data.object.payment_intent as string;
    const [succeeded] = await received(piId);
    expect(succeeded).toMatchObject({
      type: 'payment_intent.succeeded',
      data: { object: { object: 'payment_intent', id: piId, status: 'succeeded', amount: 2500, amount_received: 2500, metadata: { kind: 'donation', donation_id: 'd-42' } } },
    });
    expect(succeeded!.data.object.latest_charge).toMatch(/^ch_/);
    expect(await t.ctx.payments.feeForPaymentIntent(piId)).toBe(Math.round(2500 * 0.029) + 30);

    // A double-clicked "Pay": the same redirect, and nothing is charged or sent twice.
    const again = await request(t.app).post(`/sandbox/checkout/${s.id}/complete`).type('form').send('');
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(res.headers.location);
    expect(await received(s.id)).toHaveLength(1);
    expect(await t.ctx.db('sandbox_objects').where({ kind: 'payment_intent' }).whereRaw("data->'metadata'->>'donation_id' = 'd-42'")).toHaveLength(1);
    // Cancelling a paid session is refused.
    const cancel = await request(t.app).post(`/sandbox/checkout/${s.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.error).toBe('Conflict');
  });

  test('when the cancel form is posted, then checkout.session.expired reaches the webhook and the answer is 303 to the cancel URL', async () => {
    const s = await session();
    const res = await request(t.app).post(`/sandbox/checkout/${s.id}/cancel`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('http://site.test/fundraisers/water?cancelled=1');
    expect((await received(s.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);
  });

  test('when a subscription checkout completes, then an active subscription exists and invoice.paid carries the subscription and its metadata where newer API versions put it', async () => {
    const s = await session({ kind: 'tip', tip_id: 't-7' }, 'subscription');
    expect((await request(t.app).post(`/sandbox/checkout/${s.id}/complete`)).status).toBe(303);
    const [completed] = await received(s.id);
    const subId = completed!.data.object.subscription as string;
    expect(subId).toMatch(/^sub_/);
    const invoiceEvent = (await t.ctx.db('sandbox_objects').where({ kind: 'event' }).whereRaw("data->'event'->>'type' = 'invoice.paid' and data->'event'->'data'->'object'->>'subscription' = ?", [subId]).first()).data.event;
    expect(invoiceEvent.data.object).toMatchObject({
      object: 'invoice',
      subscription: subId,
      amount_paid: 2500,
      billing_reason: 'subscription_create',
      subscription_details: { metadata: { kind: 'tip', tip_id: 't-7' } },
      parent: { subscription_details: { metadata: { kind: 'tip', tip_id: 't-7' } } },
    });
    const sub = await t.ctx.db('sandbox_objects').where({ id: subId }).first();
    expect(sub.data).toMatchObject({ status: 'active', metadata: { kind: 'tip', tip_id: 't-7' } });
    expect(sub.data.current_period_end).toBeGreaterThan(Date.now() / 1000 + 27 * 86400);
  });

  test('when the webhook cannot be reached, then the form still redirects and a job redelivers the kept event once it can', async () => {
    const s = await session();
    const good = t.ctx.config.SANDBOX_WEBHOOK_URL;
    t.ctx.config.SANDBOX_WEBHOOK_URL = 'http://127.0.0.1:9/api/v1/webhooks/stripe';
    try {
      const res = await request(t.app).post(`/sandbox/checkout/${s.id}/cancel`);
      expect(res.status).toBe(303);
    } finally {
      t.ctx.config.SANDBOX_WEBHOOK_URL = good;
    }
    expect(await received(s.id)).toEqual([]);
    // The safety net waits 30 s; bring it forward instead of waiting.
    await makeDue(t.ctx.db, 'sandbox-webhook');
    await t.runJobs();
    expect((await received(s.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);
  });

  test('when the session is unknown or the id malformed, then 404 and 400 in the error shape', async () => {
    const unknown = await request(t.app).get('/sandbox/checkout/cs_sb_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'Not found' });
    expect((await request(t.app).post('/sandbox/checkout/cs_sb_nope/complete')).status).toBe(404);
    expect((await request(t.app).get('/sandbox/checkout/a%20b')).status).toBe(400);
  });
});

describe('sandbox PaymentIntents', () => {
  const intent = () =>
    t.ctx.payments.createPaymentIntent({ amount_cents: 10_000, currency: 'usd', metadata: { kind: 'donation', donation_id: 'd-9' }, idempotencyKey: `pi-${Math.random()}` });

  test('when a PaymentIntent is declined and then confirmed, then payment_failed and succeeded reach the webhook, and a third confirm is 409', async () => {
    const pi = await intent();
    const failed = await request(t.app).post(`/sandbox/payment-intents/${pi.id}/confirm`).send({ outcome: 'failed' });
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({ id: pi.id, status: 'requires_payment_method', webhook_delivered: true });
    const ok = await request(t.app).post(`/sandbox/payment-intents/${pi.id}/confirm`).send({ outcome: 'succeeded' });
    expect(ok.body.data).toMatchObject({ id: pi.id, status: 'succeeded' });
    const events = await received(pi.id);
    expect(events.map((e) => e.type).sort()).toEqual(['payment_intent.payment_failed', 'payment_intent.succeeded']);
    const succeeded = events.find((e) => e.type === 'payment_intent.succeeded')!;
    expect(succeeded.data.object).toMatchObject({ amount_received: 10_000, metadata: { donation_id: 'd-9' } });
    expect(succeeded.data.object.latest_charge).toMatch(/^ch_/);

    const third = await request(t.app).post(`/sandbox/payment-intents/${pi.id}/confirm`).send({ outcome: 'succeeded' });
    expect(third.status).toBe(409);
  });

  test('when refunds are taken in parts, then each charge.refunded carries the cumulative amount_refunded and more than what is left is 400', async () => {
    const pi = await intent();
    expect((await request(t.app).post(`/sandbox/payment-intents/${pi.id}/refund`).send({})).status).toBe(409);
    await request(t.app).post(`/sandbox/payment-intents/${pi.id}/confirm`).send({ outcome: 'succeeded' });
    const first = await request(t.app).post(`/sandbox/payment-intents/${pi.id}/refund`).send({ amount_cents: 3000 });
    expect(first.status).toBe(200);
    expect(first.body.data.amount_refunded_cents).toBe(3000);
    expect((await request(t.app).post(`/sandbox/payment-intents/${pi.id}/refund`).send({ amount_cents: 7001 })).status).toBe(400);
    const rest = await request(t.app).post(`/sandbox/payment-intents/${pi.id}/refund`).send({});
    expect(rest.body.data.amount_refunded_cents).toBe(10_000);
    const charges = (await t.ctx.db('sandbox_objects').where({ kind: 'event' }).whereRaw("data->'event'->>'type' = 'charge.refunded' and data->'event'->'data'->'object'->>'payment_intent' = ?", [pi.id]).orderBy('created_at'))
      .map((r) => r.data.event.data.object);
    expect(charges.map((c) => [c.amount, c.amount_refunded, c.refunded, c.refunds.data.length])).toEqual([
      [10_000, 3000, false, 1],
      [10_000, 10_000, true, 2],
    ]);
  });

  test('when the PaymentIntent is unknown or the outcome invalid, then 404 and 400', async () => {
    expect((await request(t.app).post('/sandbox/payment-intents/pi_sb_nope/confirm').send({ outcome: 'succeeded' })).status).toBe(404);
    const bad = await request(t.app).post('/sandbox/payment-intents/pi_sb_nope/confirm').send({ outcome: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('body.outcome');
  });
});

describe('sandbox Connect and payouts', () => {
  test('when the onboarding form is posted, then the account is enabled, a Connect account.updated reaches the webhook and the answer returns to the site only', async () => {
    const acct = await t.ctx.payments.createConnectedAccount({ email: 'holder@example.test', metadata: { user_id: 'u-1' }, idempotencyKey: `a-${Math.random()}` });
    const link = await t.ctx.payments.createOnboardingLink(acct.id, { refresh_url: 'http://site.test/r', return_url: 'http://site.test/done' });
    const page = await request(t.app).get(new URL(link).pathname).query({ return_url: 'http://site.test/payouts?ok=1' });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`/sandbox/connect/${acct.id}/complete?return_url=${encodeURIComponent('http://site.test/payouts?ok=1')}`);

    const done = await request(t.app).post(`/sandbox/connect/${acct.id}/complete`).query({ return_url: 'http://site.test/payouts?ok=1' }).type('form').send('');
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('http://site.test/payouts?ok=1');
    expect(await t.ctx.payments.retrieveConnectedAccount(acct.id)).toEqual({ id: acct.id, charges_enabled: true, payouts_enabled: true, details_submitted: true });
    const [updated] = await received(acct.id);
    expect(updated).toMatchObject({ type: 'account.updated', account: acct.id, data: { object: { id: acct.id, charges_enabled: true } } });

    const elsewhere = await request(t.app).post(`/sandbox/connect/${acct.id}/complete`).query({ return_url: 'https://evil.example/x' });
    expect(elsewhere.headers.location).toBe('http://site.test/');
  });

  test('when money is transferred to a connected account, then its balance is paid out once and payout.paid reaches the webhook as a Connect event', async () => {
    const acct = await t.ctx.payments.createConnectedAccount({ metadata: {}, idempotencyKey: `a-${Math.random()}` });
    const key = `tr-${Math.random()}`;
    await t.ctx.payments.createTransfer({ amount_cents: 4000, currency: 'usd', destination: acct.id, metadata: { fundraiser_id: 'f-1' }, idempotencyKey: key });
    // The same transfer again (a retried call) moves no more money.
    await t.ctx.payments.createTransfer({ amount_cents: 4000, currency: 'usd', destination: acct.id, metadata: { fundraiser_id: 'f-1' }, idempotencyKey: key });
    await t.ctx.payments.createTransfer({ amount_cents: 1000, currency: 'usd', destination: acct.id, metadata: { fundraiser_id: 'f-2' }, idempotencyKey: `tr-${Math.random()}` });
    await t.runJobs();
    const payouts = await t.ctx.payments.listPayouts(acct.id);
    expect(payouts.map((p) => [p.amount_cents, p.status]).sort()).toEqual([[1000, 'paid'], [4000, 'paid']]);
    expect(payouts[0]!.arrival_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const paid = await t.ctx.db('sandbox_objects').where({ kind: 'event' }).whereRaw("data->'event'->>'type' = 'payout.paid' and data->'event'->>'account' = ?", [acct.id]);
    expect(paid).toHaveLength(2);
    expect(paid.every((r) => r.data.delivered_at)).toBe(true);
    expect(paid[0].data.event.data.object).toMatchObject({ object: 'payout', status: 'paid', currency: 'usd' });
    expect(typeof paid[0].data.event.data.object.arrival_date).toBe('number');
  });
});

describe('sandbox routes and the processor key', () => {
  test('when STRIPE_SECRET_KEY is set, then no sandbox route exists', async () => {
    const stripeApp = createTestApp({ env: { STRIPE_SECRET_KEY: 'sk_test_x' } });
    expect((await request(stripeApp.app).get('/sandbox/checkout/cs_sb_x')).status).toBe(404);
    const doc = await request(stripeApp.app).get('/api/v1/openapi.json');
    expect(Object.keys(doc.body.paths).some((p) => p.startsWith('/sandbox'))).toBe(false);
  });

  test('when the browser holding a session cookie posts the form from another host name, then the sandbox still completes it', async () => {
    const s = await session();
    const res = await request(t.app).post(`/sandbox/checkout/${s.id}/cancel`).set('Origin', 'http://127.0.0.1:3000').set('Cookie', 'access_token=x').type('form').send('');
    expect(res.status).toBe(303);
  });
});
