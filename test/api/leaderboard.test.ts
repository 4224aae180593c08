import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { pendingJobs } from '../../src/jobs/admin';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { refreshLeaderboard } from '../../src/modules/leaderboard';
import { forgetRankingCheck, REFRESH_QUEUE } from '../../src/modules/leaderboard/leaderboard.service';

afterAll(closeDb);

const t = createTestApp();
const db = () => testDb();
const DAY = 86_400_000;
const tag = () => Math.random().toString(36).slice(2, 8);

async function rebuild() {
  await t.runJobs();
  await refreshLeaderboard(db());
  forgetRankingCheck();
}

type Row = { rank: number; kind: string; user: { id: string; name: string } | null; anonymousKey: string | null; raised_cents: number; given_cents: number; driven_cents: number; impact_cents: number };

async function board(query: Record<string, string | number> = {}, headers: Record<string, string> = {}) {
  const r = await request(t.app).get('/api/v1/leaderboard').query({ limit: 100, ...query }).set(headers).expect(200);
  return r.body as { data: Row[]; pagination: { limit: number; offset: number; total: number }; me: Row | null };
}
const rowOf = (b: { data: Row[] }, u: TestUser) => b.data.find((r) => r.user?.id === u.id);

/** A creator whose campaign a named donor and an anonymous account fund, plus a guest who gives anonymously. */
async function scene() {
  const k = tag();
  const creator = await createUser(db(), { name: `Creator ${k}` });
  const donor = await createUser(db(), { name: `Donor ${k}` });
  const secret = await createUser(db(), { name: `Secret ${k}` });
  const f = await createFundraiser(db(), creator.id);
  await createGift(db(), { fundraiserId: f.id, donorUserId: donor.id, amount: 40_000 });
  await createGift(db(), { fundraiserId: f.id, donorUserId: secret.id, amount: 25_000, anonymous: true });
  await createGift(db(), { fundraiserId: f.id, donorUserId: null, donorEmail: `anon-${k}@example.test`, amount: 7_000, anonymous: true });
  await rebuild();
  return { k, creator, donor, secret, f };
}

describe('GET /leaderboard', () => {
  it('when gifts settle, then impact = raised + given + driven and anonymous givers are alias rows that never name them', async () => {
    const s = await scene();
    const b = await board();
    expect(rowOf(b, s.creator)).toEqual(expect.objectContaining({ kind: 'user', raised_cents: 72_000, given_cents: 0, driven_cents: 0, impact_cents: 72_000 }));
    expect(rowOf(b, s.donor)).toEqual(expect.objectContaining({ given_cents: 40_000, impact_cents: 40_000, anonymousKey: null }));
    // The account that gave anonymously has no row of its own; its gift is an alias row.
    expect(rowOf(b, s.secret)).toBeUndefined();
    const aliases = b.data.filter((r) => r.kind === 'anonymous');
    expect(aliases.map((r) => r.given_cents)).toEqual(expect.arrayContaining([25_000, 7_000]));
    for (const a of aliases) {
      expect(a.user).toBeNull();
      expect(a.anonymousKey).toMatch(/^[0-9a-f]{20}$/);
    }
    const text = JSON.stringify(b);
    expect(text).not.toContain(s.secret.id);
    expect(text).not.toContain(`Secret ${s.k}`);
    expect(text).not.toContain(`anon-${s.k}`);
    // Ranks follow impact.
    const ranks = b.data.map((r) => r.rank);
    expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
    expect(b.data.map((r) => r.impact_cents)).toEqual([...b.data.map((r) => r.impact_cents)].sort((x, y) => y - x));
  });

  it('when the audience is donors, then rows rank on given; creators only hold campaign owners; ambassadors only ambassadors', async () => {
    const s = await scene();
    const donors = await board({ audience: 'donors' });
    expect(rowOf(donors, s.creator)).toBeUndefined();
    expect(donors.data.map((r) => r.given_cents)).toEqual([...donors.data.map((r) => r.given_cents)].sort((x, y) => y - x));
    const creators = await board({ audience: 'creators' });
    expect(rowOf(creators, s.creator)).toBeDefined();
    expect(rowOf(creators, s.donor)).toBeUndefined();
    expect(creators.data.every((r) => r.kind === 'user')).toBe(true);
    const amb = await board({ audience: 'ambassadors' });
    expect(rowOf(amb, s.donor)).toBeUndefined();
    await db()('users').where({ id: s.donor.id }).update({ roles: ['user', 'ambassador'] });
    await rebuild();
    expect(rowOf(await board({ audience: 'ambassadors' }), s.donor)).toBeDefined();
  });

  it('when gifts are older than the period, then 30d and 7d leave them out', async () => {
    const k = tag();
    const owner = await createUser(db(), { name: `Old ${k}` });
    const f = await createFundraiser(db(), owner.id);
    const giver = await createUser(db(), { name: `Periodic ${k}` });
    await createGift(db(), { fundraiserId: f.id, donorUserId: giver.id, amount: 1_000, paidAt: new Date(Date.now() - 40 * DAY) });
    await createGift(db(), { fundraiserId: f.id, donorUserId: giver.id, amount: 2_000, paidAt: new Date(Date.now() - 10 * DAY) });
    await createGift(db(), { fundraiserId: f.id, donorUserId: giver.id, amount: 4_000, paidAt: new Date(Date.now() - DAY) });
    await rebuild();
    expect(rowOf(await board({ period: 'all' }), giver)?.given_cents).toBe(7_000);
    expect(rowOf(await board({ period: '30d' }), giver)?.given_cents).toBe(6_000);
    expect(rowOf(await board({ period: '7d' }), giver)?.given_cents).toBe(4_000);
  });

  it('when q filters by name, then ranks keep their numbers, q is trimmed and cut to 100 characters', async () => {
    const s = await scene();
    const all = await board();
    const filtered = await board({ q: `  donor ${s.k}  ` });
    expect(filtered.data).toHaveLength(1);
    expect(filtered.data[0]).toEqual(rowOf(all, s.donor));
    expect(filtered.pagination.total).toBe(1);
    expect((await board({ q: `Donor ${s.k}` + 'z'.repeat(200) })).data).toHaveLength(0);
    expect((await board({ q: '%' })).data.length).toBe(0);
  });

  it('when signed in, then me is the caller\'s standing; guests get null; an unranked caller gets rank null', async () => {
    const s = await scene();
    expect((await board()).me).toBeNull();
    const mine = await board({}, await authHeaders(t, s.donor));
    expect(mine.me).toEqual(rowOf(await board(), s.donor));
    const nobody = await createUser(db());
    const none = await board({}, await authHeaders(t, nobody));
    expect(none.me).toEqual(expect.objectContaining({ rank: null, kind: 'user', impact_cents: 0, user: expect.objectContaining({ id: nobody.id }) }));
  });

  it('when a profile is private or the account banned, then it is not listed, not even by q', async () => {
    const s = await scene();
    await db()('users').where({ id: s.donor.id }).update({ profile_private: true });
    await db()('users').where({ id: s.creator.id }).update({ status: 'banned' });
    // Hidden at once (before the next rebuild) and after it.
    for (const step of [0, 1]) {
      if (step) await rebuild();
      const b = await board();
      expect(rowOf(b, s.donor)).toBeUndefined();
      expect(rowOf(b, s.creator)).toBeUndefined();
      expect((await board({ q: `Donor ${s.k}` })).data).toHaveLength(0);
    }
  });

  it('when paging, then offset and limit slice the ranking and pagination carries the total', async () => {
    await scene();
    const all = await board();
    const page = await board({ offset: 1, limit: 2 });
    expect(page.data).toEqual(all.data.slice(1, 3));
    expect(page.pagination).toEqual({ limit: 2, offset: 1, total: all.pagination.total });
    expect((await board({ limit: 0 })).pagination.limit).toBe(25);
  });

  it('when a parameter is out of range, then 400 in the error shape', async () => {
    for (const q of [{ period: '1y' }, { audience: 'staff' }]) {
      const r = await request(t.app).get('/api/v1/leaderboard').query(q).expect(400);
      expect(r.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
    }
  });

  it('when the ranking is stale, then a read queues one rebuild and the worker refreshes it', async () => {
    const s = await scene();
    const more = await createUser(db(), { name: `Late ${s.k}` });
    await createGift(db(), { fundraiserId: s.f.id, donorUserId: more.id, amount: 500 });
    await db()('leaderboard_state').update({ refreshed_at: new Date(Date.now() - 3600_000) });
    forgetRankingCheck();
    expect(rowOf(await board(), more)).toBeUndefined();
    expect(await pendingJobs(db(), REFRESH_QUEUE)).toHaveLength(1);
    await t.runJobs();
    expect(rowOf(await board(), more)?.given_cents).toBe(500);
  });
});

describe('GET /donors/{kind}/{key}', () => {
  it('when an anonymous alias key is read, then the page totals the giver\'s anonymous gifts and names nobody', async () => {
    const s = await scene();
    const { key } = await db()('donor_keys').where({ kind: 'anon', identity: `u:${s.secret.id}` }).first('key');
    // The leaderboard's alias row and the donor page share the key.
    expect((await board()).data.find((r) => r.anonymousKey === key)).toEqual(expect.objectContaining({ kind: 'anonymous', given_cents: 25_000 }));
    const r = await request(t.app).get(`/api/v1/donors/anon/${key}`).expect(200);
    expect(r.body.data).toEqual({ name: null, given_cents: 25_000, gifts: 1, campaigns: [{ id: s.f.id, title: s.f.title, slug: s.f.slug }], campaignsHidden: 0 });
    expect(JSON.stringify(r.body)).not.toContain(s.secret.id);
  });

  it('when a guest page is read, then it counts the named settled gifts, lists public campaigns and counts hidden ones', async () => {
    const owner = await createUser(db());
    const pub = await createFundraiser(db(), owner.id);
    const priv = await createFundraiser(db(), owner.id, { visibility: 'private' });
    const email = `Guest-${tag()}@Example.test`;
    await createGift(db(), { fundraiserId: pub.id, donorEmail: email, amount: 1_500 });
    await createGift(db(), { fundraiserId: priv.id, donorEmail: email.toLowerCase(), amount: 500 });
    await createGift(db(), { fundraiserId: pub.id, donorEmail: email, amount: 9_999, anonymous: true });
    await createGift(db(), { fundraiserId: pub.id, donorEmail: email, amount: 7_777, status: 'pending' });
    await t.runJobs();
    const { key } = await db()('donor_keys').where({ kind: 'guest', identity: email.toLowerCase() }).first('key');
    const r = await request(t.app).get(`/api/v1/donors/guest/${key}`).expect(200);
    expect(r.body.data).toEqual({ name: 'Test Donor', given_cents: 2_000, gifts: 2, campaigns: [{ id: pub.id, title: pub.title, slug: pub.slug }], campaignsHidden: 1 });
    // The same key under the other kind is a different (unknown) identity.
    await request(t.app).get(`/api/v1/donors/anon/${key}`).expect(404);
  });

  it('when the kind or key is malformed, then 400; an unknown key 404', async () => {
    await request(t.app).get('/api/v1/donors/user/0123456789abcdef0123').expect(400);
    await request(t.app).get('/api/v1/donors/guest/0123456789ABCDEF0123').expect(400);
    await request(t.app).get('/api/v1/donors/guest/0123').expect(400);
    await request(t.app).get('/api/v1/donors/guest/0123456789abcdef0123').expect(404);
  });
});

describe('GET /creators/top', () => {
  it('when creators raised money, then fundsRaised is decimal dollars, private profiles are left out and a repeat is cached', async () => {
    const k = tag();
    const big = await createUser(db(), { name: `Big ${k}` });
    const hidden = await createUser(db(), { name: `Hidden ${k}` });
    await db()('users').where({ id: hidden.id }).update({ profile_private: true });
    await createGift(db(), { fundraiserId: (await createFundraiser(db(), big.id)).id, amount: 123_456_789 });
    await createGift(db(), { fundraiserId: (await createFundraiser(db(), hidden.id)).id, amount: 200_000_000 });
    const first = await request(t.app).get('/api/v1/creators/top?limit=3').expect(200);
    expect(first.body.cached).toBe(false);
    expect(first.body.data[0]).toEqual({ id: big.id, name: `Big ${k}`, slug: expect.any(String), avatar: null, fundsRaised: 1_234_567.89 });
    expect(first.body.data.find((c: { id: string }) => c.id === hidden.id)).toBeUndefined();
    const second = await request(t.app).get('/api/v1/creators/top?limit=3').expect(200);
    expect(second.body).toEqual({ data: first.body.data, cached: true });
  });
});
