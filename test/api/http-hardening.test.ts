import express from 'express';
import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { z } from 'zod';
import { errorHandler } from '../../src/http/errors';
import { createContext } from '../../src/create-context';
import { defineRoutes, route } from '../../src/http/define-routes';
import { modules } from '../../src/modules';
import { buildContractApp, closeDb, createTestApp, testConfig, testDb } from '../helpers/app';
import { authHeaders, createUser, sessionCookies, TEST_PASSWORD } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const SITE = 'http://site.test';
const EVIL = 'https://evil.example';

/** An app whose log lines are kept, to tell what was logged at error level. */
function appWithLog(extra: ReturnType<typeof defineRoutes>[] = []) {
  const lines: Array<{ level: number; msg?: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const config = testConfig();
  const ctx = createContext({ config, db: testDb(), log: pino({ level: 'info' }, sink), redis: null });
  return { app: buildContractApp(ctx, [...modules, ...extra]), ctx, lines };
}

describe('malformed percent-encoding in a path parameter', () => {
  test('when a path parameter is `%` or a broken escape on any route, then 400 in the error shape, not logged as an error', async () => {
    const { app, lines } = appWithLog();
    const t = createTestApp();
    const u = await createUser(t.ctx.db);
    const auth = await authHeaders(t, u);
    const cases: Array<[string, string]> = [
      ['get', '/api/v1/fundraisers/%'],
      ['get', '/api/v1/fundraisers/%E0%A4%A/stats'],
      ['delete', '/api/v1/api-keys/%'],
      ['get', '/api/v1/locations/zip/%'],
      ['get', '/api/v1/fundraisers/slug/%zz'],
      ['post', '/api/v1/fundraisers/%/comments'],
    ];
    for (const [method, url] of cases) {
      const res = await request(app)[method as 'get'](url).set(auth);
      expect({ url, status: res.status, error: res.body.error }).toEqual({ url, status: 400, error: 'Bad request' });
      expect(res.body.message).toEqual(expect.any(String));
    }
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});

describe('out-of-range numbers and dates', () => {
  const t = createTestApp();

  test('when category is beyond int4 on create or update, then 400 with details, not 500', async () => {
    const u = await createUser(t.ctx.db);
    const auth = await authHeaders(t, u);
    const create = await request(t.app).post('/api/v1/fundraisers').set(auth).send({ title: 'Out of range', goal_amount_cents: 1000, status: 'draft', category: 3000000000 });
    expect(create.status).toBe(400);
    expect(create.body.details[0].path).toMatch(/^body\.category/);
    const f = await createFundraiser(t.ctx.db, u.id, { status: 'draft' });
    const patch = await request(t.app).patch(`/api/v1/fundraisers/${f.id}`).set(auth).send({ category: 3000000000 });
    expect(patch.status).toBe(400);
  });

  test('when end_date has year 0 or lies past 2999, then 400 with details, not 500', async () => {
    const u = await createUser(t.ctx.db);
    const auth = await authHeaders(t, u);
    for (const end_date of ['0000-01-01', '1899-12-31', '9999-12-31', '3000-01-01T00:00:00Z']) {
      const res = await request(t.app).post('/api/v1/fundraisers').set(auth).send({ title: 'Dates', goal_amount_cents: 1000, status: 'draft', end_date });
      expect({ end_date, status: res.status, path: res.body.details?.[0]?.path }).toEqual({ end_date, status: 400, path: 'body.end_date' });
    }
    const f = await createFundraiser(t.ctx.db, u.id, { status: 'draft' });
    const patch = await request(t.app).patch(`/api/v1/fundraisers/${f.id}`).set(auth).send({ end_date: '0000-01-01' });
    expect(patch.status).toBe(400);
    const ok = await request(t.app).patch(`/api/v1/fundraisers/${f.id}`).set(auth).send({ end_date: '2030-06-30' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.end_date).toBe('2030-06-30');
  });

  test('when a comments offset is beyond 10,000 (bigint, 1e20 or just 10001), then 400 OFFSET_TOO_LARGE with max_offset, never 500', async () => {
    const u = await createUser(t.ctx.db);
    const f = await createFundraiser(t.ctx.db, u.id);
    for (const offset of ['99999999999999999999', '9223372036854775808', '1e20', '10001']) {
      const res = await request(t.app).get(`/api/v1/fundraisers/${f.id}/comments?offset=${offset}`);
      expect({ offset, status: res.status, body: res.body }).toEqual({
        offset,
        status: 400,
        body: expect.objectContaining({ error: 'Offset too large', code: 'OFFSET_TOO_LARGE', max_offset: 10000 }),
      });
    }
    const deepest = await request(t.app).get(`/api/v1/fundraisers/${f.id}/comments?offset=10000`);
    expect(deepest.status).toBe(200);
    expect(deepest.body.pagination.offset).toBe(10000);
    const junk = await request(t.app).get(`/api/v1/fundraisers/${f.id}/comments?offset=abc&limit=1e20`);
    expect(junk.body.pagination).toEqual(expect.objectContaining({ offset: 0, limit: 100 }));
  });

  test('when the staff review queue or the campaign list gets an offset past 10,000, then 400 OFFSET_TOO_LARGE', async () => {
    const staff = await createUser(t.ctx.db, { roles: ['user', 'staff'] });
    const res = await request(t.app).get('/api/v1/admin/review-queue?offset=99999999999999999999').set(await authHeaders(t, staff));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Offset too large', code: 'OFFSET_TOO_LARGE', max_offset: 10000 });
    const list = await request(t.app).get('/api/v1/fundraisers?sort=raised&offset=1000000');
    expect(list.status).toBe(400);
    expect(list.body.code).toBe('OFFSET_TOO_LARGE');
  });

  test('when the database still reports a data exception (22xxx), then 400 in the error shape, never 500', async () => {
    const probe = defineRoutes('/hardening-probe', [
      route({ method: 'get', path: '/int', auth: 'none', response: z.object({ n: z.number() }), handler: async ({ db }) => (await db.raw('select ?::int4 as n', ['3000000000'])).rows[0] }),
      route({ method: 'get', path: '/date', auth: 'none', response: z.object({ d: z.string() }), handler: async ({ db }) => (await db.raw('select ?::date as d', ['0000-01-01'])).rows[0] }),
      route({ method: 'get', path: '/text', auth: 'none', response: z.object({ s: z.string() }), handler: async ({ db }) => (await db.raw('select ?::varchar(2) as s', ['abc'])).rows[0] }),
    ]);
    const { app, lines } = appWithLog([probe]);
    for (const p of ['int', 'date']) {
      const res = await request(app).get(`/api/v1/hardening-probe/${p}`);
      expect({ p, status: res.status, error: res.body.error }).toEqual({ p, status: 400, error: 'Bad request' });
    }
    // varchar(n) casts truncate rather than raise; the route answers whatever Postgres gave.
    expect((await request(app).get('/api/v1/hardening-probe/text')).status).toBeLessThan(500);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});

describe('login CSRF and body media types', () => {
  const t = createTestApp();

  async function userWithPassword() {
    const u = await createUser(t.ctx.db);
    await sessionCookies(t, u); // sets TEST_PASSWORD
    return u;
  }

  test('when a cross-site form posts sign-in (no cookies), then 403 and no session cookie is set', async () => {
    const u = await userWithPassword();
    const form = await request(t.app)
      .post('/api/v1/idp/signin')
      .set('Origin', EVIL)
      .type('form')
      .send(`email=${encodeURIComponent(u.email)}&password=${TEST_PASSWORD}`);
    expect(form.status).toBe(403);
    expect(form.body).toEqual(expect.objectContaining({ error: 'Forbidden', code: 'CSRF_ORIGIN_MISMATCH' }));
    expect(form.headers['set-cookie']).toBeUndefined();
    const fetchSite = await request(t.app)
      .post('/api/v1/idp/signin')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ email: u.email, password: TEST_PASSWORD });
    expect(fetchSite.status).toBe(403);
    expect(fetchSite.headers['set-cookie']).toBeUndefined();
  });

  test('when sign-up or refresh comes cross-site without cookies, then 403', async () => {
    const signup = await request(t.app).post('/api/v1/idp/signup').set('Origin', EVIL).send({ email: 'csrf-new@example.test', password: 'abcdefg12' });
    expect(signup.status).toBe(403);
    expect(await t.ctx.db('users').where({ email: 'csrf-new@example.test' }).first()).toBeUndefined();
    const refresh = await request(t.app).post('/api/v1/idp/refresh').set('Origin', 'null');
    expect(refresh.status).toBe(403);
  });

  test('when sign-in comes from the site or from a native app (no Origin), then it still signs in', async () => {
    const u = await userWithPassword();
    const site = await request(t.app).post('/api/v1/idp/signin').set('Origin', SITE).send({ email: u.email, password: TEST_PASSWORD });
    expect(site.status).toBe(200);
    const app = await request(t.app).post('/api/v1/idp/signin').send({ email: u.email, password: TEST_PASSWORD });
    expect(app.status).toBe(200);
  });

  test('when a JSON route gets a form, text or XML body, then 415 Unsupported media type', async () => {
    const u = await userWithPassword();
    const form = await request(t.app).post('/api/v1/idp/signin').type('form').send(`email=${encodeURIComponent(u.email)}&password=${TEST_PASSWORD}`);
    expect(form.status).toBe(415);
    expect(form.body).toEqual(expect.objectContaining({ error: 'Unsupported media type', accepted: ['application/json'] }));
    expect(form.headers['set-cookie']).toBeUndefined();
    const auth = await authHeaders(t, u);
    const text = await request(t.app).post('/api/v1/fundraisers').set(auth).set('Content-Type', 'text/plain').send('{"title":"x"}');
    expect(text.status).toBe(415);
    const xml = await request(t.app).post('/api/v1/idp/forgot-password').set('Content-Type', 'application/xml').send('<a/>');
    expect(xml.status).toBe(415);
  });

  test('when a route takes no body, or gets an empty body without Content-Type, or charset-qualified JSON, then no 415', async () => {
    const refresh = await request(t.app).post('/api/v1/idp/refresh');
    expect(refresh.status).toBe(401);
    const empty = await request(t.app).post('/api/v1/idp/forgot-password').set('Content-Length', '0');
    expect(empty.status).toBe(400);
    const charset = await request(t.app)
      .post('/api/v1/idp/forgot-password')
      .set('Content-Type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ email: 'nobody@example.test' }));
    expect(charset.status).toBe(200);
  });

  test('when the local identity provider gets its own media type, then it answers; another type or broken JSON is a Cognito SerializationException', async () => {
    const amz = await request(t.app)
      .post('/local-idp/')
      .set('X-Amz-Target', 'AWSCognitoIdentityProviderService.DeleteUserPool')
      .set('Content-Type', 'application/x-amz-json-1.1')
      .send('{}');
    expect(amz.status).toBe(400);
    expect(amz.body.__type ?? JSON.parse(amz.text).__type).toBe('UnknownOperationException');
    const json = await request(t.app).post('/local-idp/').set('X-Amz-Target', 'AWSCognitoIdentityProviderService.InitiateAuth').send({});
    expect(json.status).toBe(400);
    expect(json.headers['x-amzn-errortype']).toBe('SerializationException');
    expect(JSON.parse(json.text)).toEqual({ __type: 'SerializationException', message: expect.any(String) });
    const broken = await request(t.app)
      .post('/local-idp/')
      .set('X-Amz-Target', 'AWSCognitoIdentityProviderService.InitiateAuth')
      .set('Content-Type', 'application/x-amz-json-1.1')
      .send('{"ClientId":');
    expect(JSON.parse(broken.text).__type).toBe('SerializationException');
    // Without the Cognito target header a caller is not the SDK: the API's own 415 shape.
    const plain = await request(t.app).post('/local-idp/').send({});
    expect(plain.status).toBe(415);
    expect(plain.body.error).toBe('Unsupported media type');
  });
});

describe('overload', () => {
  it('when a query hits a statement timeout outside search, then the answer is 503 DATABASE_UNAVAILABLE with Retry-After, not 500', async () => {
    const app = express();
    app.get('/slow', (_req, _res, next) => next(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })));
    app.use(errorHandler);
    const r = await request(app).get('/slow');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('5');
    expect(r.body).toMatchObject({ error: 'Service temporarily unavailable', code: 'DATABASE_UNAVAILABLE' });
  });
});
