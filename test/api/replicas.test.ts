import Redis from 'ioredis';
import request from 'supertest';
import { createDb, migrateLatest } from '../../src/db/knex';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { startPgPair, type PgPair } from '../helpers/pg-replica';
import { until as pollUntil } from '../../src/infra/until';

// docs/decisions/0006-replicas-chosen-by-wal-position.md, DATABASE_REPLICA_URLS, against a real hot standby made by the test
// (pg_basebackup -R into a temporary folder, its own port): the apps below use that pair's
// primary as DATABASE_URL, not the shared test database.

jest.setTimeout(120_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `t${process.pid}r${Date.now().toString(36)}:`;

let pair: PgPair;
let redis: Redis;
let writer: TestApp; // one process: owner writes go through it
let other: TestApp; // another process sharing Redis, no read cache, a lag bound a paused standby stays within
let cached: TestApp; // a third with the read cache on
let owner: TestUser;
let campaign: FundraiserRow;

const until = <T>(what: string, probe: () => Promise<T | undefined | false>, deadlineMs = 30_000) => pollUntil(what, probe, deadlineMs, 50);

// Each guest read from its own address (the apps trust loopback proxies: TRUST_PROXY below): polls must not trip the shared per-IP bucket.
let guestSeq = 0;
const guestTitle = async (t: TestApp) => {
  guestSeq += 1;
  const res = await request(t.app).get(`/api/v1/fundraisers/${campaign.id}`).set('X-Forwarded-For', `10.77.${guestSeq >> 8}.${guestSeq & 255}`);
  expect(res.status).toBe(200);
  return res.body.data.title as string;
};

const replicaTitle = () => pair.replicaSql(`select title from fundraisers where id = '${campaign.id}'`);

async function rename(title: string): Promise<void> {
  const res = await request(writer.app).patch(`/api/v1/fundraisers/${campaign.id}`).set(await authHeaders(writer, owner)).send({ title });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  pair = await startPgPair({
    prepare: async (url) => {
      const db = createDb(url, { max: 1 });
      try {
        await migrateLatest(db);
      } finally {
        await db.destroy();
      }
    },
  });
  process.env.TEST_DATABASE_URL = pair.primaryUrl;
  // The pair's primary is direct: under TEST_PGBOUNCER=1 the file's direct URL names another server.
  delete process.env.TEST_DIRECT_DATABASE_URL;
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const env = { DATABASE_REPLICA_URLS: pair.replicaUrl, REPLICA_MAX_LAG_MS: '1000', RATE_LIMIT_PREFIX: prefix, TRUST_PROXY: 'loopback' };
  writer = createTestApp({ env, redis });
  other = createTestApp({ env: { ...env, REPLICA_MAX_LAG_MS: '600000' }, redis });
  cached = createTestApp({ env: { ...env, READ_CACHE: 'true' }, redis });
  await redis.ping();
  owner = await createUser(testDb());
  campaign = await createFundraiser(testDb(), owner.id);
  await until('the standby to replay the campaign', async () => (await replicaTitle()) === campaign.title);
}, 180_000);

afterAll(async () => {
  for (const t of [writer, other, cached]) {
    await t?.ctx.readCache?.close();
    await t?.ctx.replicas.close();
  }
  await closeDb();
  await redis?.quit();
  await pair?.stop();
});

describe('DATABASE_REPLICA_URLS', () => {
  // Each case starts from the primary's row with the standby replaying and caught up, whatever the last one left.
  beforeEach(async () => {
    await pair.replicaSql('select pg_wal_replay_resume()').catch(() => undefined);
    campaign.title = (await testDb()('fundraisers').where({ id: campaign.id }).first()).title;
    await until('the standby caught up', async () => (await replicaTitle().catch(() => '')) === campaign.title);
  });

  test('when a standby is caught up, then guest reads are served by it and not the primary', async () => {
    const before = { ...writer.ctx.replicas.counts };
    // The first probes may still be under way: wait for one read on the standby, then count ten.
    await until('a read on the standby', async () => (await guestTitle(writer)) && writer.ctx.replicas.counts.replica > before.replica);
    const mid = { ...writer.ctx.replicas.counts };
    for (let i = 0; i < 10; i += 1) expect(await guestTitle(writer)).toBe(campaign.title);
    const after = writer.ctx.replicas.counts;
    expect(after.replica - mid.replica + after.primary - mid.primary).toBe(10);
    expect(after.replica - mid.replica).toBeGreaterThan(after.primary - mid.primary);
  });

  test('when the standby is paused, then the writer reads their write at once (also through another process, via Redis) while a guest there still reads the old row', async () => {
    const headers = await authHeaders(writer, owner);
    await pair.replicaSql('select pg_wal_replay_pause()');
    const title = `Renamed while paused ${Date.now()}`;
    try {
      await rename(title);
      // `other` may read a standby up to 10 minutes behind: only read-your-writes sends the owner to the primary.
      for (const t of [other, writer]) {
        const res = await request(t.app).get(`/api/v1/fundraisers/${campaign.id}`).set(headers);
        expect(res.status).toBe(200);
        expect(res.body.data.title).toBe(title);
      }
      // The standby has not replayed it: the reads above did not come from there, and a guest there sees the old row.
      expect(await replicaTitle()).not.toBe(title);
      expect(await guestTitle(other)).toBe(campaign.title);
    } finally {
      await pair.replicaSql('select pg_wal_replay_resume()');
    }
  });

  test('when a change is notified before the standby replays it, then the read cache never keeps the old answer', async () => {
    expect(await cached.ctx.readCache!.ready()).toBe(true);
    expect(await guestTitle(cached)).toBe(campaign.title); // filled
    await pair.replicaSql('select pg_wal_replay_pause()');
    const title = `Renamed for the cache ${Date.now()}`;
    try {
      await rename(title);
      // Another process's change reaches `cached` by notification while the standby is paused.
      await until('the guest to see the change', async () => (await guestTitle(cached)) === title, 10_000);
      expect(await replicaTitle()).not.toBe(title);
      // Whatever refills run now, none stores the standby's old answer.
      const end = Date.now() + 1500;
      while (Date.now() < end) expect(await guestTitle(cached)).toBe(title);
    } finally {
      await pair.replicaSql('select pg_wal_replay_resume()');
    }
    const resumed = Date.now();
    await until('the standby to replay the change', async () => (await replicaTitle()) === title);
    expect(await guestTitle(cached)).toBe(title);
    expect(Date.now() - resumed).toBeLessThan(10_000);
  });

  test('when changes are notified faster than the standby is probed (a steady stream of gifts), then fills still read it once it has replayed them', async () => {
    expect(await cached.ctx.readCache!.ready()).toBe(true);
    expect(await guestTitle(cached)).toBe(campaign.title); // filled
    const before = { ...cached.ctx.replicas.counts };
    // A counter change every 20 ms, as settlements make: each is notified, fences the standbys
    // at the primary's position, and makes the next guest read a refill. The standbys' probes run
    // every 300 ms, so every fence is newer than the last probe.
    let writing = true;
    const writes = (async () => {
      while (writing) {
        await testDb()('fundraisers').where({ id: campaign.id }).increment('shares_count', 1);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      const end = Date.now() + 3_000;
      while (Date.now() < end) {
        expect(await guestTitle(cached)).toBe(campaign.title);
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      writing = false;
      await writes;
    }
    const onStandby = cached.ctx.replicas.counts.replica - before.replica;
    const onPrimary = cached.ctx.replicas.counts.primary - before.primary;
    // Judged by its last probe alone, the standby took 3 of 103 fills here. Asked at read time it
    // takes most of them; a quarter leaves room for a busy machine, where it replays later.
    expect({ onStandby, onPrimary, share: onStandby / (onStandby + onPrimary) >= 0.25 }).toEqual({ onStandby, onPrimary, share: true });
  });

  test('when the standby stops, then reads go on with no 5xx, and it is used again once it is back', async () => {
    await pair.stopReplica();
    try {
      for (let i = 0; i < 20; i += 1) expect(await guestTitle(writer)).toBe(campaign.title);
    } finally {
      await pair.startReplica();
    }
    const before = writer.ctx.replicas.counts.replica;
    await until('a read on the restarted standby', async () => (await guestTitle(writer)) && writer.ctx.replicas.counts.replica > before);
  });
});
