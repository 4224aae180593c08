import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { pruneIdempotencyKeys } from '../../src/http/idempotency';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { png, storageEnv } from '../helpers/media';

let t: TestApp;
let owner: TestUser;
let fid: string;

beforeAll(async () => {
  t = createTestApp({ env: storageEnv() });
  owner = await createUser(testDb());
  fid = (await createFundraiser(testDb(), owner.id)).id;
});
afterAll(closeDb);

const gift = (key: string | null, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
  const r = request(t.app).post('/api/v1/donations').set(headers);
  if (key !== null) r.set('Idempotency-Key', key);
  return r.send({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'g@example.test', ...body });
};
const giftsFor = async (fundraiserId: string) => testDb()('donations').where({ fundraiser_id: fundraiserId });
const sessionsFor = async (fundraiserId: string) =>
  testDb()('sandbox_objects').whereRaw(`data->'metadata'->>'donation_id' in (select id::text from donations where fundraiser_id = ?)`, [fundraiserId]);

/** Holds the processor's checkout call until released, to keep a request in flight. */
function holdCheckout() {
  const payments = t.ctx.payments as unknown as Record<string, unknown>;
  const original = payments.createCheckoutSession as (...a: unknown[]) => Promise<unknown>;
  let entered!: () => void;
  let release!: () => void;
  const started = new Promise<void>((r) => (entered = r));
  const gate = new Promise<void>((r) => (release = r));
  payments.createCheckoutSession = async (...args: unknown[]) => {
    entered();
    await gate;
    return original.apply(t.ctx.payments, args);
  };
  return { started, release: () => { release(); delete payments.createCheckoutSession; } };
}

describe('Idempotency-Key on POST', () => {
  test('when 10 identical POST /donations with one key arrive at once, then exactly one gift and one checkout session are made', async () => {
    const f = await createFundraiser(testDb(), owner.id);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => gift(key, { fundraiser_id: f.id })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.data.donation_id)).size).toBe(1);
    for (const busy of answers.filter((a) => a.status === 409)) {
      expect(busy.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(busy.headers['retry-after']).toBe('1');
    }
    // A retry once the first has answered gets the same gift again.
    const again = await gift(key, { fundraiser_id: f.id });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(created[0]!.body);
    expect(await giftsFor(f.id)).toHaveLength(1);
    expect(await sessionsFor(f.id)).toHaveLength(1);
  });

  test('when the same key and body are sent again, then the stored status and body come back with Idempotent-Replayed: true and no second gift', async () => {
    const f = await createFundraiser(testDb(), owner.id);
    const key = randomUUID();
    const first = await gift(key, { fundraiser_id: f.id, tip_cents: 100 });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same body with its keys in another order is the same request.
    const second = await gift(key, { tip_cents: 100, fundraiser_id: f.id });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toMatch(/application\/json/);
    expect(second.body).toEqual(first.body);
    expect(await giftsFor(f.id)).toHaveLength(1);
    // A 4xx answer is kept as well.
    const badKey = randomUUID();
    const unknown = randomUUID();
    const refused = await gift(badKey, { fundraiser_id: unknown });
    expect(refused.status).toBe(400);
    const refusedAgain = await gift(badKey, { fundraiser_id: unknown });
    expect(refusedAgain.status).toBe(400);
    expect(refusedAgain.headers['idempotent-replayed']).toBe('true');
    expect(refusedAgain.body).toEqual(refused.body);
  });

  test('when the key is reused with a different body, path or method, then 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = randomUUID();
    expect((await gift(key)).status).toBe(201);
    const otherBody = await gift(key, { amount_cents: 2_000 });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual(expect.objectContaining({ error: 'Idempotency key reuse', code: 'IDEMPOTENCY_KEY_REUSED' }));
    const otherPath = await request(t.app)
      .post('/api/v1/payments/create-intent')
      .set('Idempotency-Key', key)
      .send({ fundraiser_id: fid, amount_cents: 1_000, donor_email: 'g@example.test' });
    expect(otherPath.status).toBe(422);
    expect(otherPath.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  test('when the same key arrives while the first request still runs, then 409 IDEMPOTENCY_KEY_IN_USE with Retry-After: 1', async () => {
    const key = randomUUID();
    const hold = holdCheckout();
    const first = gift(key).then((r) => r);
    await hold.started;
    const second = await gift(key);
    expect(second.status).toBe(409);
    expect(second.body).toEqual(expect.objectContaining({ code: 'IDEMPOTENCY_KEY_IN_USE' }));
    expect(second.headers['retry-after']).toBe('1');
    hold.release();
    expect((await first).status).toBe(201);
    const third = await gift(key);
    expect(third.status).toBe(201);
    expect(third.headers['idempotent-replayed']).toBe('true');
  });

  test('when the client gives up on a request and retries, then the retry waits (409) and then replays the one gift', async () => {
    const f = await createFundraiser(testDb(), owner.id);
    const key = randomUUID();
    const hold = holdCheckout();
    const abandoned = gift(key, { fundraiser_id: f.id }).timeout({ response: 200 }).then(
      () => 'answered',
      () => 'gave up',
    );
    await hold.started;
    expect(await abandoned).toBe('gave up');
    expect((await gift(key, { fundraiser_id: f.id })).status).toBe(409);
    hold.release();
    let retry = await gift(key, { fundraiser_id: f.id });
    for (let i = 0; i < 50 && retry.status === 409; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      retry = await gift(key, { fundraiser_id: f.id });
    }
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await giftsFor(f.id)).toHaveLength(1);
  });

  test('when the first answer is a 5xx, then the key is freed and a retry runs again', async () => {
    const f = await createFundraiser(testDb(), owner.id);
    const key = randomUUID();
    const payments = t.ctx.payments as unknown as Record<string, unknown>;
    payments.createCheckoutSession = async () => {
      throw Object.assign(new Error('down'), { type: 'StripeConnectionError' });
    };
    let failed;
    try {
      failed = await gift(key, { fundraiser_id: f.id });
    } finally {
      delete payments.createCheckoutSession;
    }
    expect(failed.status).toBe(503);
    const retry = await gift(key, { fundraiser_id: f.id });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect((await giftsFor(f.id)).map((d) => d.status).sort()).toEqual(['failed', 'pending']);
  });

  test('when a guest and signed-in callers send the same key, then each scope is its own; guests share one', async () => {
    const key = randomUUID();
    const ada = await createUser(testDb());
    const bob = await createUser(testDb());
    const asGuest = await gift(key);
    const asAda = await gift(key, { amount_cents: 3_000 }, await authHeaders(t, ada));
    const asBob = await gift(key, { amount_cents: 4_000 }, await authHeaders(t, bob));
    expect([asGuest.status, asAda.status, asBob.status]).toEqual([201, 201, 201]);
    expect(new Set([asGuest.body.data.donation_id, asAda.body.data.donation_id, asBob.body.data.donation_id]).size).toBe(3);
    // Ada's key is hers whichever credential she uses; another guest shares the guest scope.
    const adaAgain = await gift(key, { amount_cents: 3_000 }, await authHeaders(t, ada));
    expect(adaAgain.headers['idempotent-replayed']).toBe('true');
    expect((await gift(key, { amount_cents: 5_000 })).status).toBe(422);
  });

  test('when the key is empty, too long or not printable ASCII, then 400; GET, /idp/* and the Stripe webhook ignore the header', async () => {
    for (const bad of ['', 'x'.repeat(256), 'clé']) {
      const res = await gift(bad);
      expect({ bad: bad.slice(0, 5), status: res.status }).toEqual({ bad: bad.slice(0, 5), status: 400 });
    }
    expect((await gift('x'.repeat(255))).status).toBe(201);
    const key = randomUUID();
    for (let i = 0; i < 2; i += 1) {
      const read = await request(t.app).get('/api/v1/donations/recent').set('Idempotency-Key', key);
      expect(read.headers['idempotent-replayed']).toBeUndefined();
      const signIn = await request(t.app).post('/api/v1/idp/signin').set('Idempotency-Key', key).send({ email: 'nobody@example.test', password: 'wrong-password-1' });
      expect(signIn.headers['idempotent-replayed']).toBeUndefined();
      const hook = await request(t.app).post('/api/v1/webhooks/stripe').set('Idempotency-Key', key).set('Content-Type', 'application/json').send('{}');
      expect(hook.status).toBe(400);
      expect(hook.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await testDb()('idempotency_keys').where({ key })).toHaveLength(0);
  });

  test('when a multipart upload is retried with its key, then the first upload is answered again', async () => {
    const h = await authHeaders(t, owner);
    const key = randomUUID();
    const up = async () =>
      request(t.app).post(`/api/v1/fundraisers/${fid}/media`).set(h).set('Idempotency-Key', key).attach('file', await png(4, 4), 'x.png');
    const first = await up();
    expect(first.status).toBe(201);
    const second = await up();
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  test('when a key is older than 24 hours, then it is free again and pruneIdempotencyKeys deletes it', async () => {
    const key = randomUUID();
    const f = await createFundraiser(testDb(), owner.id);
    expect((await gift(key, { fundraiser_id: f.id })).status).toBe(201);
    await testDb()('idempotency_keys').where({ key }).update({ created_at: testDb().raw(`now() - interval '25 hours'`) });
    const again = await gift(key, { fundraiser_id: f.id, amount_cents: 2_000 });
    expect(again.status).toBe(201);
    expect(await giftsFor(f.id)).toHaveLength(2);
    await testDb()('idempotency_keys').where({ key }).update({ created_at: testDb().raw(`now() - interval '25 hours'`) });
    expect(await pruneIdempotencyKeys(testDb())).toBeGreaterThanOrEqual(1);
    expect(await testDb()('idempotency_keys').where({ key })).toHaveLength(0);
  });

  test('when the OpenAPI document is read, then idempotent POSTs name the Idempotency-Key header and excluded ones do not', async () => {
    const doc = (await request(t.app).get('/api/v1/openapi.json')).body;
    const headerOf = (op: { parameters?: Array<{ in: string; name: string }> }) => (op.parameters ?? []).find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    expect(headerOf(doc.paths['/api/v1/donations'].post)).toBeDefined();
    expect(doc.paths['/api/v1/donations'].post.responses['422']).toBeDefined();
    expect(headerOf(doc.paths['/api/v1/webhooks/stripe'].post)).toBeUndefined();
    expect(headerOf(doc.paths['/api/v1/idp/signin'].post)).toBeUndefined();
    expect(headerOf(doc.paths['/api/v1/donations/recent'].get)).toBeUndefined();
  });
});
