import type { Express } from 'express';
import Redis from 'ioredis';
import request from 'supertest';
import { createLogger } from '../../src/infra/logger';
import { buildContractApp, closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { logCapture } from '../helpers/log-capture';
import { createUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { until } from '../helpers/processes';

/**
 * The read cache's fast path (src/http/read-cache/fast-hit.ts) answers a guest hit before Express with what
 * the full path answers: the same requests to an app with it and one without (same context, so
 * the same cache entries; each app its own limiter buckets) must get the same status, headers
 * (in the same order; only Date and the generated request id differ) and body bytes.
 */
const api = '/api/v1';
const db = testDb();

let t: TestApp;
let full: Express;
let f: FundraiserRow;
let serves = 0;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis | null = null;
/** The same pair with the limiter's buckets in Redis (the fast path then counts asynchronously). */
let shared: { t: TestApp; full: Express } | null = null;
let ipSeq = 0;
// A new client address per request: both apps' buckets then show the same RateLimit values.
const freshIp = () => `10.77.${Math.floor((ipSeq += 1) / 250)}.${(ipSeq % 250) + 1}`;

beforeAll(async () => {
  t = createTestApp({ env: { READ_CACHE: 'true', TRUST_PROXY: 'loopback' } });
  full = buildContractApp(t.ctx, undefined, { fastHits: false });
  expect(await t.ctx.readCache!.ready()).toBe(true);
  const owner = await createUser(db, { name: 'Fast Owner' });
  const seen = t.ctx.readCache!.counts.invalidation;
  f = await createFundraiser(db, owner.id, {});
  await until('the insert notification', async () => t.ctx.readCache!.counts.invalidation > seen, 2_000, 5);
  for (const app of [t]) {
    const serve = app.ctx.readCache!.serve.bind(app.ctx.readCache!);
    app.ctx.readCache!.serve = (...args) => {
      serves += 1;
      return serve(...args);
    };
  }
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    redis = client;
    const st = createTestApp({ redis, env: { READ_CACHE: 'true', TRUST_PROXY: 'loopback', RATE_LIMIT_PREFIX: `fasthit${Date.now()}:` } });
    expect(await st.ctx.readCache!.ready()).toBe(true);
    shared = { t: st, full: buildContractApp(st.ctx, undefined, { fastHits: false }) };
    const serve = st.ctx.readCache!.serve.bind(st.ctx.readCache!);
    st.ctx.readCache!.serve = (...args) => {
      serves += 1;
      return serve(...args);
    };
  } catch (err) {
    client.disconnect();
    if (process.env.CI) throw new Error(`Redis at ${REDIS_URL} is unreachable under CI: ${String(err)}`);
    console.warn(`SKIPPED: the fast path with Redis buckets needs a Redis at ${REDIS_URL}; none answered.`);
  }
});

afterAll(async () => {
  await t.ctx.readCache?.close();
  await shared?.t.ctx.readCache?.close();
  if (redis) await redis.quit();
  await closeDb();
});

type Headers = Record<string, string>;
const get = (app: Express, path: string, headers: Headers = {}) => {
  const r = request(app).get(path).set('X-Forwarded-For', freshIp());
  for (const [k, v] of Object.entries(headers)) r.set(k, v);
  return r.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });
};

/** Status, headers in order (Date and a generated X-Request-Id left out) and body bytes. */
function shape(r: request.Response, keepId: boolean) {
  const headers = Object.entries(r.headers as Headers).filter(([k]) => k !== 'date' && (keepId || k !== 'x-request-id'));
  return { status: r.status, headers, body: (r.body as Buffer).toString('base64') };
}

/**
 * Warms the cache and teaches the fast app the URL, then asks both: the fast app must answer
 * without the route pipeline (no ReadCache.serve call) and exactly as the full app does.
 */
async function compare(path: string, headers: Headers = {}, pair: { t: TestApp; full: Express } = { t, full }) {
  await get(pair.t.app, path, headers).expect(200); // fills (or hits) through the full pipeline and learns the URL
  const fromFull = await get(pair.full, path, headers);
  const before = serves;
  const fromFast = await get(pair.t.app, path, headers);
  expect({ path, served: serves - before }).toEqual({ path, served: 0 });
  const keepId = headers['X-Request-Id'] !== undefined;
  expect(shape(fromFast, keepId)).toEqual(shape(fromFull, keepId));
  expect(fromFast.headers['x-request-id']).toMatch(keepId ? headers['X-Request-Id']! : /^[0-9a-f-]{36}$/);
  return fromFast;
}

describe('a fast-path hit answers what the full path answers', () => {
  it.each([
    ['slug read', () => `${api}/fundraisers/slug/${f.slug}`],
    ['slug read with lang', () => `${api}/fundraisers/slug/${f.slug}?lang=es`],
    ['read by id', () => `${api}/fundraisers/${f.id}`],
    ['stats', () => `${api}/fundraisers/${f.id}/stats`],
    ['list', () => `${api}/fundraisers`],
    ['list page', () => `${api}/fundraisers?offset=20&limit=10&status=active`],
    ['cities', () => `${api}/fundraisers/cities`],
    ['categories', () => `${api}/categories`],
  ])('%s', async (_name, path) => {
    const r = await compare(path());
    expect(r.headers['ratelimit-remaining']).toBe('299');
    expect(r.headers['content-security-policy']).toBeDefined();
    expect(r.headers['access-control-allow-origin']).toBeDefined();
    expect(r.headers.etag).toBeDefined();
  });

  it('keys the list by Accept-Language as the full path does', async () => {
    const ru = await compare(`${api}/fundraisers`, { 'Accept-Language': 'ru' });
    const en = await compare(`${api}/fundraisers`, { 'Accept-Language': 'en-US,en;q=0.9' });
    expect(ru.headers.vary).toContain('Accept-Language');
    expect(en.headers.vary).toBe(ru.headers.vary);
  });

  it('echoes a given request id and answers If-None-Match with the same 304', async () => {
    const path = `${api}/fundraisers/slug/${f.slug}`;
    const first = await compare(path, { 'X-Request-Id': 'caller-id-1' });
    await get(t.app, path, { 'If-None-Match': first.headers.etag! }).expect(304);
    const fromFull = await get(full, path, { 'If-None-Match': first.headers.etag! }).expect(304);
    const before = serves;
    const fromFast = await get(t.app, path, { 'If-None-Match': first.headers.etag! }).expect(304);
    expect(serves).toBe(before);
    expect(shape(fromFast, false)).toEqual(shape(fromFull, false));
  });

  it('leaves cookies, credentials, bodies and other methods to the full path', async () => {
    const path = `${api}/fundraisers/slug/${f.slug}`;
    await compare(path);
    for (const headers of [{ Cookie: 'lang=ru' }, { 'Content-Length': '0' }] as Headers[]) {
      const before = serves;
      await get(t.app, path, headers).expect(200);
      expect({ headers, served: serves - before }).toEqual({ headers, served: 1 });
    }
    // The full path checks the credential (and refuses this one) before it reads the cache.
    await get(t.app, path, { Authorization: 'Bearer nonsense' }).expect(401);
    const before = serves;
    await request(t.app).head(path).set('X-Forwarded-For', freshIp()).expect(200);
    expect(serves).toBe(before + 1);
  });

  it('counts the same per-IP bucket: the request over the limit gets the full path 429', async () => {
    const path = `${api}/fundraisers/${f.id}/stats`;
    await compare(path);
    const ip = '10.78.0.1';
    const at = (app: Express) => get(app, path).set('X-Forwarded-For', ip);
    for (let i = 0; i < 300; i += 1) await at(t.app).expect(200);
    for (let i = 0; i < 300; i += 1) await at(full).expect(200);
    const fast429 = await at(t.app).expect(429);
    const full429 = await at(full).expect(429);
    // The body carries the request id (so does the weak ETag Express computes over it); the
    // reset counts down from each app's own first request.
    const timed = new Set(['etag', 'ratelimit-reset', 'retry-after']);
    const same = (r: request.Response) => ({
      status: r.status,
      headers: shape(r, false).headers.filter(([k]) => !timed.has(k)),
      body: { ...(JSON.parse((r.body as Buffer).toString()) as object), request_id: undefined },
    });
    expect(same(fast429)).toEqual(same(full429));
  });

  it('counts in Redis buckets the same way when the limiter keeps them there', async () => {
    if (!shared) return;
    for (const path of [`${api}/fundraisers/slug/${f.slug}`, `${api}/fundraisers`]) {
      const r = await compare(path, {}, shared);
      expect(r.headers['ratelimit-remaining']).toBe('299');
    }
    // One address through both apps: one shared bucket, counted once per request by either path.
    const ip = '10.79.0.1';
    const path = `${api}/fundraisers/slug/${f.slug}`;
    const seen = [];
    for (const app of [shared.t.app, shared.full, shared.t.app]) seen.push((await get(app, path).set('X-Forwarded-For', ip)).headers['ratelimit-remaining']);
    expect(seen).toEqual(['299', '298', '297']);
  });

  it('writes the request log line the full path writes', async () => {
    const { lines, dest } = logCapture();
    // The same context logging at npm start's level into `lines`, with and without the fast path.
    const ctx = { ...t.ctx, log: createLogger('info', dest) };
    const fast = buildContractApp(ctx);
    const slow = buildContractApp(ctx, undefined, { fastHits: false });
    const path = `${api}/fundraisers/slug/${f.slug}`;
    await get(fast, path).expect(200); // learns the URL
    const logged = [];
    let fastServes = 0;
    for (const app of [slow, fast]) {
      lines.length = 0;
      const before = serves;
      await get(app, path, { 'X-Request-Id': 'fast-log-check' }).expect(200);
      if (app === fast) fastServes = serves - before;
      await until('the request line', () => lines.find((l) => l.msg === 'request completed'), 5_000, 5);
      const { req, res, level, msg } = lines.find((l) => l.msg === 'request completed')!;
      logged.push({ req, res, level, msg });
    }
    expect(fastServes).toBe(0); // answered by the fast path
    expect(logged[1]).toEqual(logged[0]);
    expect(logged[0]).toEqual({ req: { id: 'fast-log-check', method: 'GET', url: path }, res: { statusCode: 200 }, level: 30, msg: 'request completed' });
  });
});
