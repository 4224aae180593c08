import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { z } from 'zod';
import { createContext } from '../../src/create-context';
import { createDb } from '../../src/db/knex';
import { defineRoutes, idParams, route } from '../../src/http/define-routes';
import { modules } from '../../src/modules';
import health from '../../src/modules/health/health.routes';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { buildContractApp, closeDb, createTestApp, testConfig, testDb, type TestApp } from '../helpers/app';

afterAll(closeDb);
afterEach(() => jest.restoreAllMocks());

const probe = defineRoutes(
  '/err-probe',
  [
    route({ method: 'get', path: '/items/:id', summary: 'uuid param', auth: 'none', params: idParams, response: z.object({ id: z.string() }), handler: ({ params }) => ({ id: params.id }) }),
    route({
      method: 'post',
      path: '/items',
      summary: 'validated body',
      auth: 'none',
      body: z.object({ name: z.string().min(1), goal_amount_cents: z.number().int() }),
      response: z.object({ name: z.string(), goal_amount_cents: z.number().int() }),
      handler: ({ body }) => body,
    }),
    route({
      method: 'get',
      path: '/boom',
      summary: 'unexpected failure',
      auth: 'none',
      handler: () => {
        throw new Error('secret internals: connection string postgres://x');
      },
    }),
  ],
  { tag: 'test' },
);

/** A test app whose logger writes JSON lines into `lines`. */
function loggedApp(): { t: TestApp; lines: () => Array<Record<string, any>> } {
  const base = createTestApp();
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  base.ctx.log = pino({ level: 'info' }, sink);
  const app = buildContractApp(base.ctx, [...modules, probe]);
  return {
    t: { ...base, app },
    lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)),
  };
}

describe('foundation pipeline', () => {
  const { app } = createTestApp();

  test('when GET /healthz then 200, a request id and no rate-limit or X-Powered-By headers', async () => {
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-powered-by']).toBeUndefined();
    // helmet defaults
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  test('when a caller passes X-Request-Id then it is echoed', async () => {
    const res = await request(app).get('/healthz').set('X-Request-Id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  test('when the site origin calls with credentials then CORS allows it, and not another origin', async () => {
    const ok = await request(app).get('/healthz').set('Origin', 'http://site.test');
    expect(ok.headers['access-control-allow-origin']).toBe('http://site.test');
    expect(ok.headers['access-control-allow-credentials']).toBe('true');
    const other = await request(app).get('/healthz').set('Origin', 'http://evil.test');
    expect(other.headers['access-control-allow-origin']).not.toBe('http://evil.test');
  });
});

describe('readiness', () => {
  test('when GET /readyz with a reachable database then 200', async () => {
    const { app } = createTestApp();
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  test('when the database is unreachable then /readyz answers 503 and /healthz still 200', async () => {
    const config = testConfig();
    jest.spyOn(console, 'log').mockImplementation(() => undefined); // knex's own "acquire connection" notice
    // Port 1 on loopback: nothing listens there, connections are refused at once.
    const deadDb = createDb('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    try {
      const ctx = createContext({ config, db: deadDb, log: pino({ level: 'silent' }) });
      const app = buildContractApp(ctx, [health]);
      const res = await request(app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: 'Not ready', message: expect.any(String) });
      expect((await request(app).get('/healthz')).status).toBe(200);
    } finally {
      await deadDb.destroy();
    }
  });
});

describe('errors', () => {
  test('when an unknown /api/v1 route is requested then 404 JSON in the error shape', async () => {
    const { app } = createTestApp();
    const res = await request(app).get('/api/v1/nope');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ error: 'Not found', message: expect.any(String) });
  });

  test('when the body is malformed JSON then 400', async () => {
    const { app } = createTestApp();
    const res = await request(app).post('/api/v1/nope').set('Content-Type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Invalid JSON', message: expect.any(String) });
  });

  test('when any error is answered then its body carries request_id equal to the X-Request-Id header', async () => {
    const { t } = loggedApp();
    const answers = [
      await request(t.app).get('/api/v1/nope'),
      await request(t.app).get('/nope-at-the-root'),
      await request(t.app).post('/api/v1/nope').set('Content-Type', 'application/json').send('{"a":'),
      await request(t.app).get('/api/v1/err-probe/items/not-a-uuid'),
      await request(t.app).post('/api/v1/err-probe/items').send({ name: '' }),
      await request(t.app).get('/api/v1/err-probe/boom'),
      await request(t.app).get('/api/v1/nope').set('X-Request-Id', 'bug-report-42'),
    ];
    for (const res of answers) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(typeof res.headers['x-request-id']).toBe('string');
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
    }
    expect(answers.at(-1)!.body.request_id).toBe('bug-report-42');
  });

  test('when the body is over the limit then 413', async () => {
    const { app } = createTestApp();
    const big = JSON.stringify({ a: 'x'.repeat(1024 * 1024 + 10) });
    const res = await request(app).post('/api/v1/nope').set('Content-Type', 'application/json').send(big);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: 'Payload too large', message: expect.any(String) });
  });

  test('when a uuid path parameter is not a uuid then 400 with details, never 404 or 500', async () => {
    const { t } = loggedApp();
    const res = await request(t.app).get('/api/v1/err-probe/items/not-a-uuid');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'Validation failed',
      message: expect.any(String),
      details: [{ path: 'params.id', message: expect.any(String) }],
    });
    const ok = await request(t.app).get('/api/v1/err-probe/items/6f1c2a7e-2b1d-4c3e-9a8b-7c6d5e4f3a2b');
    expect(ok.status).toBe(200);
  });

  test('when a body fails zod validation then 400 with one details item per failure', async () => {
    const { t } = loggedApp();
    const res = await request(t.app).post('/api/v1/err-probe/items').send({ name: '', goal_amount_cents: 'ten', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Validation failed');
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { path: 'body.name', message: expect.any(String) },
        { path: 'body.goal_amount_cents', message: expect.any(String) },
      ]),
    );
    expect(res.body.details).toHaveLength(2);
    // Unknown fields are ignored.
    const ok = await request(t.app).post('/api/v1/err-probe/items').send({ name: 'a', goal_amount_cents: 10, extra: 1 });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ name: 'a', goal_amount_cents: 10 });
  });

  test('when a handler throws unexpectedly then 500 with a generic message and the request id, logged, no stack', async () => {
    const { t, lines } = loggedApp();
    const res = await request(t.app).get('/api/v1/err-probe/boom').set('X-Request-Id', 'req-boom-1');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ error: 'Internal server error', message: expect.any(String), requestId: 'req-boom-1', request_id: 'req-boom-1' });
    expect(res.text).not.toMatch(/secret internals|postgres:\/\/|\bat .*\.ts:\d+/);
    const logged = lines().filter((l) => l.level === 50);
    expect(logged.some((l) => l.requestId === 'req-boom-1' && String(l.err?.message).includes('secret internals'))).toBe(true);
  });
});

describe('request log', () => {
  test('when a request is logged then the line has method, url, id, status and time but no headers', async () => {
    const { t, lines } = loggedApp();
    await request(t.app)
      .get('/healthz')
      .set('X-Request-Id', 'req-log-1')
      .set('Authorization', 'Bearer very-secret-token')
      .set('Cookie', 'access_token=also-secret');
    const line = lines().find((l) => l.req?.id === 'req-log-1');
    expect(line).toBeDefined();
    expect(line!.req).toEqual({ id: 'req-log-1', method: 'GET', url: '/healthz' });
    expect(line!.res).toEqual({ statusCode: 200 });
    expect(typeof line!.responseTime).toBe('number');
    expect(JSON.stringify(lines())).not.toMatch(/very-secret-token|also-secret|user-agent/i);
  });
});

describe('platform numbers and stats', () => {
  const countUsers = async () => Number((await testDb()('users').count<{ n: string }[]>({ n: '*' }))[0].n);

  test('when GET /api/v1/stats then a bare object counted from the real tables', async () => {
    const { app } = createTestApp();
    await createUser(testDb());
    const before = await countUsers();
    const res = await request(app).get('/api/v1/stats');
    const after = await countUsers();
    expect(res.status).toBe(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body).toEqual({
      campaigns_live: expect.any(Number),
      campaigns_total: expect.any(Number),
      users_total: expect.any(Number),
      total_raised_cents: expect.any(Number),
      donations_total: expect.any(Number),
    });
    // Other test files add users concurrently, so bracket the count.
    expect(res.body.users_total).toBeGreaterThanOrEqual(before);
    expect(res.body.users_total).toBeLessThanOrEqual(after);
    expect(res.body.campaigns_live).toBeLessThanOrEqual(res.body.campaigns_total);
  });

  test('when campaigns hold money then /stats counts it from their totals, leaving out deleted and unpublished ones', async () => {
    const { app } = createTestApp();
    const before = (await request(app).get('/api/v1/stats')).body;
    const owner = await createUser(testDb());
    await createFundraiser(testDb(), owner.id, { status: 'active', raised_cents: 1500, donation_count: 3 });
    await createFundraiser(testDb(), owner.id, { status: 'draft' });
    await createFundraiser(testDb(), owner.id, { status: 'active', raised_cents: 999, donation_count: 1, deleted_at: new Date() });
    const after = (await request(app).get('/api/v1/stats')).body;
    expect(after.campaigns_live - before.campaigns_live).toBe(1);
    expect(after.campaigns_total - before.campaigns_total).toBe(2);
    expect(after.total_raised_cents - before.total_raised_cents).toBe(1500);
    expect(after.donations_total - before.donations_total).toBe(3);
  });

  test('when GET /platform/numbers twice then the second answer is the cached one (same computed_at) for five minutes', async () => {
    const t = createTestApp();
    const wrap = jest.spyOn(t.ctx.cache, 'wrap');
    const first = await request(t.app).get('/api/v1/platform/numbers');
    expect(first.status).toBe(200);
    expect(first.body.data).toBeUndefined();
    expect(new Date(first.body.computed_at).toISOString()).toBe(first.body.computed_at);
    expect(first.body.users_total).toEqual(expect.any(Number));
    expect(wrap).toHaveBeenCalledWith(expect.any(String), 300, expect.any(Function));

    await createUser(testDb());
    const second = await request(t.app).get('/api/v1/platform/numbers');
    expect(second.body).toEqual(first.body);

    // Past five minutes the numbers are computed again.
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 301_000);
    const third = await request(t.app).get('/api/v1/platform/numbers');
    expect(third.status).toBe(200);
    expect(third.body.computed_at).not.toBe(first.body.computed_at);
    expect(third.body.users_total).toBeGreaterThan(first.body.users_total);
  });
});
