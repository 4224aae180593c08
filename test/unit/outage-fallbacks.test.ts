import type { AddressInfo } from 'node:net';
import net from 'node:net';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import request from 'supertest';
import { createDb } from '../../src/db/knex';
import { errorHandler } from '../../src/http/errors';
import { storeFor } from '../../src/http/rate-limits';
import { MemoryCache, ResilientCache } from '../../src/infra/cache';
import { createRedis, redisState } from '../../src/infra/redis';
import { databaseReady } from '../../src/modules/health/readiness-probe';

// Single-flight cache misses, bounded in-process caches, and the per-process fallbacks
// that keep limits and caches working while Redis is unreachable (docs/decisions/0011-outages-answer-503.md).

describe('cache wrap (single-flight)', () => {
  test('when 20 requests miss the same key at once, then compute runs once and all get its value', async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const compute = async () => {
      calls += 1;
      await new Promise((r) => setTimeout(r, 50));
      return { n: 42 };
    };
    const got = await Promise.all(Array.from({ length: 20 }, () => cache.wrap('k', 30, compute)));
    expect(calls).toBe(1);
    expect(got.every((g) => g.n === 42)).toBe(true);
  });

  test('when the shared computation fails, then every waiter sees the error and the next miss computes again', async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const failing = async () => {
      calls += 1;
      await new Promise((r) => setTimeout(r, 10));
      throw new Error('render failed');
    };
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => cache.wrap('k', 30, failing)));
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    expect(calls).toBe(1);
    expect(await cache.wrap('k', 30, async () => 'ok')).toBe('ok');
  });
});

describe('bounded in-process cache', () => {
  test('when far more distinct keys are stored than the entry bound, then it holds at most the bound', async () => {
    const cache = new MemoryCache({ maxEntries: 100 });
    for (let i = 0; i < 5_000; i++) await cache.set(`list:${i}`, { page: i }, 300);
    expect(cache.size).toBeLessThanOrEqual(100);
    expect(await cache.get('list:4999')).toEqual({ page: 4999 });
  });

  test('when large values (rendered images) are stored, then their total stays under the byte bound', async () => {
    const maxBytes = 1_000_000;
    const cache = new MemoryCache({ maxEntries: 10_000, maxBytes });
    const png = 'x'.repeat(40_000); // ~80 kB as a JS string
    for (let i = 0; i < 200; i++) await cache.set(`share-image:og:${i}`, png, 30);
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    expect(cache.size).toBeLessThan(20);
  });
});

describe('Redis unreachable', () => {
  // Port 1 on loopback: nothing listens, connections are refused at once.
  const redis = createRedis('redis://127.0.0.1:1');
  afterAll(() => redis.disconnect());

  test('when Redis cannot be reached, then the cache answers from the process instead of throwing', async () => {
    const cache = new ResilientCache(redis);
    await cache.set('a', { v: 1 }, 30);
    expect(await cache.get('a')).toEqual({ v: 1 });
    let calls = 0;
    expect(await cache.wrap('b', 30, async () => ++calls)).toBe(1);
    expect(await cache.wrap('b', 30, async () => ++calls)).toBe(1);
    expect(redisState(redis)).toBe('local');
  });

  test('when Redis cannot be reached, then a per-IP limit still limits (per process), never failing open', async () => {
    const app = express();
    app.use(rateLimit({ windowMs: 60_000, limit: 3, store: storeFor('down-test', redis), passOnStoreError: true, validate: false }));
    app.get('/x', (_req, res) => res.json({ ok: true }));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await request(app).get('/x')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
  });
});

describe('readiness probe', () => {
  test('when the database accepts connections but never answers (frozen), then the probe says not ready within a second', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s)); // accepts, never speaks
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as AddressInfo;
    const db = createDb(`postgres://postgres@127.0.0.1:${port}/none`, { max: 1, acquireTimeoutMs: 5_000, statementTimeoutMs: 5_000 });
    try {
      const started = Date.now();
      expect(await databaseReady(db)).toBe(false);
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      for (const s of sockets) s.destroy();
      await db.destroy().catch(() => undefined);
      await new Promise((r) => silent.close(r));
    }
  });
});

describe('database errors in the error middleware', () => {
  const cases: Array<[string, Error]> = [
    ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['57P01 admin shutdown', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['57P03 cannot connect now', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['08006 connection failure', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['Connection terminated', new Error('Connection terminated unexpectedly')],
    ['pg read timeout', new Error('Query read timeout')],
    ['knex acquire timeout', Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' })],
  ];
  test.each(cases)('when a request fails with %s, then 503 DATABASE_UNAVAILABLE with Retry-After, never 500', async (_name, err) => {
    const app = express();
    app.get('/x', (_req, _res, next) => next(err));
    app.use(errorHandler);
    const res = await request(app).get('/x');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.body).toMatchObject({ error: 'Service temporarily unavailable', code: 'DATABASE_UNAVAILABLE' });
  });
});

describe('a transaction that lost a race', () => {
  test.each([
    ['40P01 deadlock detected', '40P01'],
    ['40001 could not serialize access', '40001'],
  ])('when a request fails with %s, then 503 RETRY with Retry-After, never 500', async (_name, code) => {
    const app = express();
    app.get('/x', (_req, _res, next) => next(Object.assign(new Error('lost'), { code })));
    app.use(errorHandler);
    const res = await request(app).get('/x');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({ error: 'Service temporarily unavailable', code: 'RETRY' });
  });
});
