import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const db = testDb();

/** A fresh app per test: its own 15 s feed cache and rate-limit buckets. */
const feed = async (query = '') => {
  const t = createTestApp();
  return request(t.app).get(`/api/v1/home/activity${query}`).expect(200);
};

type Item = { kind: string; at: string; fundraiser: { id: string; title: string; slug: string } | null; [k: string]: unknown };
const itemsFor = (body: { data: Item[] }, id: string) => body.data.filter((i) => i.fundraiser?.id === id);

describe('GET /home/activity', () => {
  it('when gifts are paid, then they are listed newest first with amount, and anonymous donors are never named', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id, { title: 'Activity water well' });
    const named = await createGift(db, { fundraiserId: f.id, amount: 1500 });
    await db('donations').where({ id: named.id }).update({ donor_name: 'Visible Vera' });
    const anon = await createGift(db, { fundraiserId: f.id, amount: 2500, anonymous: true });
    await db('donations').where({ id: anon.id }).update({ donor_name: 'Hidden Hank', paid_at: db.raw("now() + interval '1 second'") });
    const res = await feed('?limit=50');
    expect(res.headers['cache-control']).toBe('public, max-age=15');
    const mine = itemsFor(res.body, f.id).filter((i) => i.kind === 'gift');
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({ kind: 'gift', amount_cents: 2500, donor_name: null, currency: 'USD', fundraiser: { id: f.id, title: 'Activity water well', slug: f.slug } });
    expect(mine[1]).toMatchObject({ amount_cents: 1500, donor_name: 'Visible Vera' });
    expect(JSON.stringify(res.body)).not.toContain('Hidden Hank');
    const ats = res.body.data.map((i: Item) => i.at);
    expect([...ats].sort().reverse()).toEqual(ats);
  });

  it('when a signed-in donor has a private profile, then their gift is shown without a name', async () => {
    const owner = await createUser(db);
    const donor = await createUser(db);
    await db('users').where({ id: donor.id }).update({ profile_private: true });
    const f = await createFundraiser(db, owner.id);
    const g = await createGift(db, { fundraiserId: f.id, donorUserId: donor.id, amount: 700 });
    await db('donations').where({ id: g.id }).update({ donor_name: 'Private Pat' });
    const res = await feed('?limit=50');
    expect(itemsFor(res.body, f.id)[0]).toMatchObject({ kind: 'gift', donor_name: null });
    expect(JSON.stringify(res.body)).not.toContain('Private Pat');
  });

  it.each([
    ['private', { visibility: 'private' }],
    ['unlisted', { visibility: 'unlisted' }],
    ['paused', { status: 'paused' }],
    ['deleted', { deleted_at: new Date() }],
  ])('when a gift goes to a %s campaign, then the feed does not show it', async (_what, over) => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    await createGift(db, { fundraiserId: f.id, amount: 999 });
    await db('fundraisers').where({ id: f.id }).update(over);
    const res = await feed('?limit=50');
    expect(itemsFor(res.body, f.id)).toEqual([]);
    expect(JSON.stringify(res.body)).not.toContain(f.id);
  });

  it('when a campaign is submitted for review, then an item says so without naming it', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id, { status: 'pending', title: 'Secret pending title' });
    await db('fundraisers').where({ id: f.id }).update({ submitted_at: db.raw("now() + interval '1 minute'") });
    const res = await feed();
    const item = res.body.data[0];
    expect(item).toEqual({ kind: 'submitted_for_review', at: expect.any(String), fundraiser: null });
    expect(JSON.stringify(res.body)).not.toContain('Secret pending title');
    expect(JSON.stringify(res.body)).not.toContain(f.id);
  });

  it('when visitors have a page open and referral links are clicked, then viewing_now, referral_click and referral_view items carry counts', async () => {
    const t = createTestApp();
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    await request(t.app).post(`/api/v1/presence/fundraisers/${f.id}?v=visitor-one-1`).expect(204);
    await request(t.app).post(`/api/v1/presence/fundraisers/${f.id}`).set('Cookie', 'visitor_id=visitor-two-2').expect(204);
    await request(t.app).post('/api/v1/referrals/clicks').send({ fundraiser_id: f.id, ref: 'some-code' }).expect(204);
    const res = await feed('?limit=50');
    const mine = itemsFor(res.body, f.id);
    expect(mine.find((i) => i.kind === 'viewing_now')).toMatchObject({ count: 2 });
    expect(mine.find((i) => i.kind === 'referral_view')).toMatchObject({ count: 1 });
    expect(mine.find((i) => i.kind === 'referral_click')).toBeDefined();
  });

  it('when the feed was read, then a new gift appears only after the 15 s server cache expires', async () => {
    const t = createTestApp();
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    const first = await request(t.app).get('/api/v1/home/activity?limit=50').expect(200);
    await createGift(db, { fundraiserId: f.id, amount: 1234 });
    const second = await request(t.app).get('/api/v1/home/activity?limit=50').expect(200);
    expect(second.body).toEqual(first.body);
    await t.ctx.cache.del('activity:home:en:50');
    const third = await request(t.app).get('/api/v1/home/activity?limit=50').expect(200);
    expect(itemsFor(third.body, f.id)).toHaveLength(1);
  });

  it('when lang names a locale with a stored translation, then the campaign title is translated', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id, { title: 'English title' });
    await db('fundraiser_translations').insert({ fundraiser_id: f.id, lang: 'es', title: 'Título en español', summary: null, story_html: null });
    await createGift(db, { fundraiserId: f.id, amount: 100 });
    const res = await feed('?limit=50&lang=es');
    expect(itemsFor(res.body, f.id)[0]!.fundraiser!.title).toBe('Título en español');
  });

  it.each([
    ['0', 20],
    ['-3', 20],
    ['abc', 20],
    ['500', 50],
    ['3', 3],
  ])('when limit is %s, then at most %i items are listed', async (limit, max) => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    for (let i = 0; i < 4; i += 1) await createGift(db, { fundraiserId: f.id, amount: 100 + i });
    const res = await feed(`?limit=${limit}`);
    expect(res.body.data.length).toBeLessThanOrEqual(max);
    if (max === 3) expect(res.body.data).toHaveLength(3);
  });
});

describe('POST /presence/fundraisers/{id}', () => {
  it('when a browser has no visitor cookie, then it gets one and the answer has no body', async () => {
    const t = createTestApp();
    const f = await createFundraiser(db, (await createUser(db)).id);
    const res = await request(t.app).post(`/api/v1/presence/fundraisers/${f.id}`).expect(204);
    expect(res.text).toBe('');
    expect(String(res.headers['set-cookie'])).toMatch(/visitor_id=[A-Za-z0-9_-]{8,64};.*HttpOnly/);
  });

  it('when a visitor pings, then only a one-way hash is stored and repeated pings count one visitor', async () => {
    const t = createTestApp();
    const f = await createFundraiser(db, (await createUser(db)).id);
    await request(t.app).post(`/api/v1/presence/fundraisers/${f.id}?v=my-visitor-id-42`).expect(204);
    await request(t.app).post(`/api/v1/presence/fundraisers/${f.id}?v=my-visitor-id-42`).expect(204);
    const rows = await db('presence_pings').where({ fundraiser_id: f.id });
    expect(rows).toHaveLength(1);
    expect(rows[0].visitor_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain('my-visitor-id-42');
  });

  it.each(['short', 'has space in it', 'x'.repeat(65), 'bad!chars!here'])('when v is %j, then 400', async (v) => {
    const t = createTestApp();
    const f = await createFundraiser(db, (await createUser(db)).id);
    const res = await request(t.app).post(`/api/v1/presence/fundraisers/${f.id}`).query({ v }).expect(400);
    expect(res.body.error).toBe('Validation failed');
  });

  it('when the id is not a uuid, then 400; when the campaign is unknown or a draft, then 404', async () => {
    const t = createTestApp();
    const draft = await createFundraiser(db, (await createUser(db)).id, { status: 'draft' });
    await request(t.app).post('/api/v1/presence/fundraisers/not-a-uuid?v=visitor-abc').expect(400);
    await request(t.app).post(`/api/v1/presence/fundraisers/${randomUUID()}?v=visitor-abc`).expect(404);
    await request(t.app).post(`/api/v1/presence/fundraisers/${draft.id}?v=visitor-abc`).expect(404);
  });

  it('when one IP pings one campaign a fifth time in a minute, then 429, while another campaign still answers', async () => {
    const t = createTestApp();
    const owner = await createUser(db);
    const a = await createFundraiser(db, owner.id);
    const b = await createFundraiser(db, owner.id);
    for (let i = 0; i < 4; i += 1) await request(t.app).post(`/api/v1/presence/fundraisers/${a.id}?v=visitor-abc`).expect(204);
    const res = await request(t.app).post(`/api/v1/presence/fundraisers/${a.id}?v=visitor-abc`).expect(429);
    expect(res.body).toMatchObject({ error: 'Too many requests, please try again later.', retryAfter: 60 });
    expect(res.headers['ratelimit-policy']).toBe('4;w=60');
    await request(t.app).post(`/api/v1/presence/fundraisers/${b.id}?v=visitor-abc`).expect(204);
  });
});
