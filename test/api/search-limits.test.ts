import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { searchGate } from '../../src/modules/discovery/search-limit';

afterAll(closeDb);

// Searches that may wait are never left to a timer in these tests: statement and queue timeouts
// are long unless the test is about them.
const saturating = createTestApp({
  env: { SEARCH_CONCURRENCY: '2', SEARCH_QUEUE_MAX: '1', SEARCH_QUEUE_TIMEOUT_MS: '60000', SEARCH_STATEMENT_TIMEOUT_MS: '60000' },
});
const timingOut = createTestApp({ env: { SEARCH_CONCURRENCY: '2', SEARCH_STATEMENT_TIMEOUT_MS: '200' } });
const db = saturating.ctx.db;
const word = 'zqsearch' + randomUUID().replace(/[^a-f]/g, '').slice(0, 8);
let campaign: FundraiserRow;

beforeAll(async () => {
  const owner = await createUser(db, { name: 'Search Owner' });
  campaign = await createFundraiser(db, owner.id, { title: `Garden ${word}` });
});

/**
 * Holds an ACCESS EXCLUSIVE lock on fundraiser_translations, which every list query joins and a
 * detail read without `lang` does not: searches then really wait inside Postgres, each holding a
 * pooled connection, until release() (the slow search, without sleeping on a clock).
 */
async function blockSearches(): Promise<{ release(): Promise<void> }> {
  const c = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await c.connect();
  await c.query('begin');
  await c.query('lock table fundraiser_translations in access exclusive mode');
  return {
    async release() {
      await c.query('rollback');
      await c.end();
    },
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never happened: ${what}`);
}

async function searchesWaitingOnLock(): Promise<number> {
  const r = await db.raw(
    `select count(*)::int n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%websearch_to_tsquery%'`,
  );
  return r.rows[0].n;
}

const search = (t: TestApp, ip: string) =>
  request(t.app).get('/api/v1/fundraisers').query({ q: word }).set('X-Forwarded-For', ip).then((r) => r);

describe('bounded ranked search', () => {
  test('when searches fill the cap and the queue, then the next one gets 503 with Retry-After and a detail read still answers', async () => {
    const gate = searchGate(saturating.ctx);
    expect(gate.limit).toBe(2);
    const lock = await blockSearches();
    let inFlight: Array<Promise<request.Response>> = [];
    try {
      inFlight = [search(saturating, '10.0.0.1'), search(saturating, '10.0.0.2')];
      await until('two searches running and blocked in Postgres', async () => gate.active === 2 && (await searchesWaitingOnLock()) === 2);
      inFlight.push(search(saturating, '10.0.0.3'));
      await until('one search queued', () => gate.queued === 1);

      const refused = await search(saturating, '10.0.0.4');
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toMatchObject({
        error: 'Service unavailable',
        message: expect.any(String),
        code: 'SEARCH_BUSY',
        retryAfter: 1,
      });

      const detail = await request(saturating.app).get(`/api/v1/fundraisers/${campaign.id}`).set('X-Forwarded-For', '10.0.0.5');
      expect(detail.status).toBe(200);
      expect(detail.body.data.id).toBe(campaign.id);
      const bySlug = await request(saturating.app).get(`/api/v1/fundraisers/slug/${campaign.slug}`).set('X-Forwarded-For', '10.0.0.6');
      expect(bySlug.status).toBe(200);
      // The searches were still stuck while both reads answered: the reads did not wait for them.
      expect([gate.active, gate.queued]).toEqual([2, 1]);
    } finally {
      await lock.release();
    }
    const done = await Promise.all(inFlight);
    expect(done.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(done.map((r) => r.body.data.map((c: { id: string }) => c.id))).toEqual([[campaign.id], [campaign.id], [campaign.id]]);
    expect([gate.active, gate.queued]).toEqual([0, 0]);
  });

  test('when a search runs past SEARCH_STATEMENT_TIMEOUT_MS, then it answers 503 SEARCH_TIMEOUT with Retry-After, never 500', async () => {
    const lock = await blockSearches();
    let res: request.Response;
    try {
      res = await search(timingOut, '10.0.1.1');
    } finally {
      await lock.release();
    }
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({ error: 'Service unavailable', message: expect.any(String), code: 'SEARCH_TIMEOUT', retryAfter: 1 });
    // The slot is given back, and the next search (nothing blocking it now) answers.
    expect(searchGate(timingOut.ctx).active).toBe(0);
    const again = await search(timingOut, '10.0.1.2');
    expect(again.status).toBe(200);
    expect(again.body.pagination.total).toBe(1);
  });

  test('when SEARCH_CONCURRENCY exceeds half the database pool, then the cap is half the pool', () => {
    const wide = createTestApp({ env: { SEARCH_CONCURRENCY: '64' } });
    // The test pool has 5 connections.
    expect(searchGate(wide.ctx).limit).toBe(2);
  });

  test('when a bad SEARCH_CONCURRENCY is configured, then the configuration is refused naming it', () => {
    expect(() => createTestApp({ env: { SEARCH_CONCURRENCY: '0' } })).toThrow(/SEARCH_CONCURRENCY/);
  });
});
