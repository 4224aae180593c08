import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Redis from 'ioredis';
import request from 'supertest';
import { defineRoutes, route } from '../../src/http/define-routes';
import { modules } from '../../src/modules';
import { buildContractApp, closeDb, createTestApp } from '../helpers/app';

/**
 * Two API instances on one Redis share their rate-limit buckets. Needs REDIS_URL (or a Redis on
 * 127.0.0.1:6379). Without one it is skipped with a warning, except under CI, where it fails.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const probe = defineRoutes(
  '/rl-redis-probe',
  [route({ method: 'post', path: '/strict', summary: 'strict probe', auth: 'none', limiters: ['strict'], handler: () => ({ ok: true }) })],
  { root: true, tag: 'test' },
);

let redis: Redis | null = null;
let available = false;
const servers: Server[] = [];

beforeAll(async () => {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    available = (await client.ping()) === 'PONG';
    redis = client;
  } catch (err) {
    client.disconnect();
    if (process.env.CI) throw new Error(`Redis at ${REDIS_URL} is unreachable under CI: ${String(err)}`);
    console.warn(`SKIPPED: Redis rate-limit tests need a Redis at ${REDIS_URL} (set REDIS_URL); none answered.`);
  }
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  if (redis) await redis.quit();
  await closeDb();
});

/** One API instance: its own app, limiters and context, on the shared Redis client. */
function instance(prefix: string, shared: Redis | null): Server {
  const t = createTestApp({ redis: shared, env: { TRUST_PROXY: 'true', RATE_LIMIT_PREFIX: prefix } });
  const server = buildContractApp(t.ctx, [...modules, probe]).listen(0);
  servers.push(server);
  return server;
}

async function clearPrefix(prefix: string) {
  const keys = await redis!.keys(`${prefix}*`);
  if (keys.length) await redis!.del(...keys);
}

describe('rate limits on a shared Redis store', () => {
  test('when requests are split across two instances then they share one bucket and trip at the cap', async () => {
    if (!available) return;
    const prefix = `rltest:${randomUUID()}:`;
    const a = instance(prefix, redis);
    const b = instance(prefix, redis);
    try {
      const ip = '203.0.113.7';
      const statuses: number[] = [];
      const remaining: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await request(i % 2 === 0 ? a : b).post('/rl-redis-probe/strict').set('X-Forwarded-For', ip);
        statuses.push(res.status);
        remaining.push(res.headers['ratelimit-remaining']);
        if (i === 5) expect(res.body).toMatchObject({ error: 'Rate limit exceeded for sensitive operation.', retryAfter: 60 });
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      // One count across both instances, not two counts of 3.
      expect(remaining).toEqual(['4', '3', '2', '1', '0', '0']);
      // The bucket lives in Redis under the configured prefix.
      expect(await redis!.keys(`${prefix}strict:*`)).toHaveLength(1);
      // Another client is unaffected on either instance.
      expect((await request(b).post('/rl-redis-probe/strict').set('X-Forwarded-For', '203.0.113.8')).status).toBe(200);
    } finally {
      await clearPrefix(prefix);
    }
  });

  test('when two instances use different prefixes then their buckets are separate', async () => {
    if (!available) return;
    const p1 = `rltest:${randomUUID()}:`;
    const p2 = `rltest:${randomUUID()}:`;
    const a = instance(p1, redis);
    const b = instance(p2, redis);
    try {
      const ip = '203.0.113.9';
      for (let i = 0; i < 5; i++) expect((await request(a).post('/rl-redis-probe/strict').set('X-Forwarded-For', ip)).status).toBe(200);
      expect((await request(a).post('/rl-redis-probe/strict').set('X-Forwarded-For', ip)).status).toBe(429);
      expect((await request(b).post('/rl-redis-probe/strict').set('X-Forwarded-For', ip)).status).toBe(200);
    } finally {
      await clearPrefix(p1);
      await clearPrefix(p2);
    }
  });

  test('when two instances have no Redis then each counts alone (the shared case above is not a coincidence)', async () => {
    if (!available) return;
    const a = instance('unused:', null);
    const b = instance('unused:', null);
    const ip = '203.0.113.10';
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await request(i % 2 === 0 ? a : b).post('/rl-redis-probe/strict').set('X-Forwarded-For', ip)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});
