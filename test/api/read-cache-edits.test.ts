import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { ReadCache } from '../../src/http/read-cache/read-cache';
import { createLogger } from '../../src/infra/logger';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { until } from '../helpers/processes';

/**
 * An edit to anything a cached guest read shows is visible at once on the instance
 * that made it, and within 1 s on another instance on the same database, per source table
 * (the tables come from test/api/read-cache-sources.test.ts; counts keep their 30 s allowance).
 */
const db = testDb();
let a: TestApp;
let b: TestApp;
let owner: TestUser;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// LISTEN goes over the direct connection (under TEST_PGBOUNCER=1 TEST_DATABASE_URL is the pooler), as the app's does.
const connection = process.env.TEST_DIRECT_DATABASE_URL ?? process.env.TEST_DATABASE_URL!;
const log = createLogger('silent');
const caches: ReadCache[] = [];
let redis: Redis | null = null;

beforeAll(async () => {
  owner = await createUser(db, { name: 'Edits Owner' });
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    redis = client;
  } catch (err) {
    client.disconnect();
    if (process.env.CI) throw new Error(`Redis at ${REDIS_URL} is unreachable under CI: ${String(err)}`);
    console.warn(`SKIPPED: the shared-Redis variant needs a Redis at ${REDIS_URL}; none answered.`);
  }
});

afterAll(async () => {
  for (const c of caches) await c.close();
  redis?.disconnect();
  await closeDb();
});

/** Two instances on one database, each with its own read cache; `shared`: both on one Redis prefix. */
async function instances(shared: boolean): Promise<boolean> {
  if (shared && !redis) return false;
  const prefix = `test-readcache-edits-${randomUUID()}:`;
  a = createTestApp();
  b = createTestApp();
  for (const t of [a, b]) {
    const c = new ReadCache({ connection, log, redis: shared ? redis : null, redisPrefix: prefix });
    caches.push(c);
    t.ctx.readCache = c;
    expect(await c.ready()).toBe(true);
  }
  return true;
}

const slugRead = (t: TestApp, f: FundraiserRow) => request(t.app).get(`/api/v1/fundraisers/slug/${f.slug}?lang=es`).expect(200);

interface Case {
  table: string;
  /** Makes the edit; `api` edits go through instance a. */
  write: (f: FundraiserRow, mark: string) => Promise<void>;
  shows: (body: any, mark: string) => boolean;
  api: boolean;
  /** The cached read that shows it (default: the campaign's slug read). */
  read?: (t: TestApp, f: FundraiserRow) => Promise<request.Response>;
}

const CASES: Case[] = [
  {
    table: 'categories (GET /categories)',
    api: false,
    read: (t) => request(t.app).get('/api/v1/categories?lang=es').expect(200),
    write: async (f, mark) => {
      const cat = await db('categories').where({ id: f.category_id }).first('names');
      await db('categories').where({ id: f.category_id }).update({ names: { ...cat.names, es: `Lista ${mark}` } });
    },
    shows: (body, mark) => JSON.stringify(body.data).includes(`Lista ${mark}`),
  },
  {
    table: 'fundraisers (PUT outcome-report)',
    api: true,
    write: async (f, mark) => {
      await request(a.app).put(`/api/v1/fundraisers/${f.id}/outcome-report`).set(await authHeaders(a, owner)).send({ body_html: `<p>Report ${mark}</p>` }).expect(200);
    },
    shows: (body, mark) => JSON.stringify(body.data.outcome_report ?? null).includes(mark),
  },
  {
    table: 'fundraisers (SQL)',
    api: false,
    write: async (f, mark) => void (await db('fundraisers').where({ id: f.id }).update({ summary: `Summary ${mark}` })),
    shows: (body, mark) => JSON.stringify(body.data).includes(mark),
  },
  {
    table: 'fundraiser_translations',
    api: false,
    write: async (f, mark) => void (await db('fundraiser_translations').insert({ fundraiser_id: f.id, lang: 'es', title: `Hola ${mark}` })),
    shows: (body, mark) => body.data.title === `Hola ${mark}`,
  },
  {
    table: 'users',
    api: false,
    write: async (_f, mark) => void (await db('users').where({ id: owner.id }).update({ name: `Owner ${mark}` })),
    shows: (body, mark) => JSON.stringify(body.data).includes(`Owner ${mark}`),
  },
  {
    table: 'categories',
    api: false,
    write: async (f, mark) => {
      const cat = await db('categories').where({ id: f.category_id }).first('names');
      await db('categories').where({ id: f.category_id }).update({ names: { ...cat.names, es: `Cat ${mark}`, en: `Cat ${mark}` } });
    },
    shows: (body, mark) => JSON.stringify(body.data).includes(`Cat ${mark}`),
  },
];

describe.each([
  ['in-process caches', false],
  ['caches sharing Redis', true],
])('%s', (_variant, shared) => {
  let up = false;
  beforeAll(async () => {
    up = await instances(shared);
  });

  test.each(CASES.map((c) => [c.table, c] as const))('when %s changes, then a cached guest read shows it on this instance at once and on another within 1 s', async (_name, c) => {
    if (!up) return;
    const guest = c.read ?? slugRead;
    const cat = await db('categories').first('id');
    const f = await createFundraiser(db, owner.id, { category_id: cat.id } as Partial<FundraiserRow>);
    // Both instances hold the campaign (the insert's notification taken in first, so the fill is kept).
    await until('both caches fill', async () => {
      await guest(a, f);
      await guest(b, f);
      const ha = a.ctx.readCache!.counts.hit;
      const hb = b.ctx.readCache!.counts.hit;
      await guest(a, f);
      await guest(b, f);
      return a.ctx.readCache!.counts.hit > ha && b.ctx.readCache!.counts.hit > hb;
    }, 10_000, 20);
    const mark = randomUUID().slice(0, 8);
    await c.write(f, mark);
    if (c.api) expect(c.shows((await guest(a, f)).body, mark)).toBe(true);
    // Other processes learn of it through the notification: within 1 s (a generous poll budget is not used here on purpose).
    const start = Date.now();
    for (const t of c.api ? [b] : [a, b]) await until(`${c.table} on a cached read`, async () => c.shows((await guest(t, f)).body, mark), 1_000, 10);
    expect(Date.now() - start).toBeLessThan(2_000);
  });
});
