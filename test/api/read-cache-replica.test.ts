import express from 'express';
import Redis from 'ioredis';
import request from 'supertest';
import { prepareAnswer } from '../../src/http/caching';
import { ReadCache, type ReadOutcome } from '../../src/http/read-cache/read-cache';
import { markReadCached } from '../../src/http/read-cache/read-cache-routes';
import { createLogger } from '../../src/infra/logger';
import { until } from '../helpers/processes';

/**
 * Fills shared through Redis with standbys (DATABASE_REPLICA_URLS): another process may fill under
 * the new generation from a standby that has not replayed the change yet (its own notification
 * still on the way). A process that has seen the change takes such an answer only when the
 * standby it came from had replayed at least the change's position (replicas.readFloor).
 */
const log = createLogger('silent');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `rcr${process.pid}${Date.now().toString(36)}:`;
let redis: Redis;
const caches: ReadCache[] = [];

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  await redis.ping();
});

afterAll(async () => {
  for (const c of caches) await c.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** A tiny app answering GET /k through `cache` with `compute`. */
function serving(cache: ReadCache, compute: () => Promise<ReadOutcome>) {
  const app = express();
  // As a route table does for a route declaring readCache: true (the cache refuses others).
  app.get('/:key', (req, res, next) => (markReadCached(res), cache.serve(req, res, String(req.params.key), compute)).catch(next));
  return app;
}

async function cacheWith(readFloor?: () => bigint): Promise<ReadCache> {
  const c = new ReadCache({ connection: process.env.TEST_DIRECT_DATABASE_URL ?? process.env.TEST_DATABASE_URL!, log, redis, redisPrefix: prefix, readFloor });
  caches.push(c);
  expect(await c.ready()).toBe(true);
  return c;
}

const outcome = (v: string, replayLsn: bigint | null): ReadOutcome => ({ answer: prepareAnswer({ v }, null), cacheable: true, fundraiserId: null, replayLsn });

test('when another process shared an answer read on a standby behind a change this process has seen, then this process reads again instead of taking it', async () => {
  const filler = await cacheWith();
  const reader = await cacheWith(() => 100n);
  await request(serving(filler, async () => outcome('old', 50n))).get('/behind').expect(200, { v: 'old' });
  await until('the shared fill', async () => (await redis.exists(`${prefix}behind`)) === 1, 5_000, 20);
  let computed = 0;
  const res = await request(serving(reader, async () => (computed++, outcome('new', null)))).get('/behind');
  expect(res.body).toEqual({ v: 'new' });
  expect(computed).toBe(1);
});

test('when the standby had replayed past the change, or the primary answered, then the shared answer is taken', async () => {
  const filler = await cacheWith();
  const reader = await cacheWith(() => 100n);
  for (const [key, lsn] of [['past', 150n], ['primary', null]] as const) {
    await request(serving(filler, async () => outcome('shared', lsn))).get(`/${key}`).expect(200);
    await until('the shared fill', async () => (await redis.exists(`${prefix}${key}`)) === 1, 5_000, 20);
    let computed = 0;
    const res = await request(serving(reader, async () => (computed++, outcome('own', null)))).get(`/${key}`);
    expect(res.body).toEqual({ v: 'shared' });
    expect(computed).toBe(0);
  }
});
