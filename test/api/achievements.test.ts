import { randomUUID } from 'node:crypto';
import * as QRCode from 'qrcode';
import request from 'supertest';
import { emit } from '../../src/events';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = t.ctx.db;
const api = '/api/v1';

type Entry = { code: string; kind: string; label: string; earned_at: string };

const list = async (userId: string, as?: TestUser, query = '') => {
  const req = request(t.app).get(`${api}/users/${userId}/achievements${query}`);
  if (as) req.set(await authHeaders(t, as));
  return req;
};
const kindsOf = (body: { data: Entry[] }) => body.data.map((e) => e.kind).sort();
const codeOf = async (userId: string, kind: string): Promise<string> =>
  (await db('achievements').where({ user_id: userId, kind }).first('code')).code;
const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

/** Runs the event subscribers (and any other due job) now. */
const settle = () => t.runJobs();

/** A user with a public campaign who earned first_update on it; returns the code. */
async function earnedCard(over: { name?: string } = {}) {
  const holder = await createUser(db, { name: over.name ?? 'Card Holder' });
  const f = await createFundraiser(db, holder.id, { title: `Card campaign ${randomUUID().slice(0, 6)}` });
  await db.transaction((trx) =>
    emit(trx, 'update.posted', { update_id: randomUUID(), fundraiser_id: f.id, author_user_id: holder.id, created_at: new Date().toISOString() }),
  );
  await settle();
  return { holder, f, code: await codeOf(holder.id, 'first_update') };
}

describe('earning achievements', () => {
  it('when a signed-in donor\'s first gift is paid, then first_gift is earned once and a second gift adds nothing', async () => {
    const owner = await createUser(db);
    const donor = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    await createGift(db, { fundraiserId: f.id, donorUserId: donor.id });
    await settle();
    await createGift(db, { fundraiserId: f.id, donorUserId: donor.id });
    await settle();
    const res = await list(donor.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ code: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/), kind: 'first_gift', label: 'First gift', earned_at: expect.any(String) }]);
    expect(Number((await db('achievements').where({ user_id: donor.id }).count())[0].count)).toBe(1);
  });

  it('when a guest (no account) gives, then nobody earns first_gift', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    const before = Number((await db('achievements').where({ kind: 'first_gift' }).count())[0].count);
    await createGift(db, { fundraiserId: f.id });
    await settle();
    expect(Number((await db('achievements').where({ kind: 'first_gift' }).count())[0].count)).toBe(before);
  });

  it('when a campaign reaches 10 donors, then its holder earns donors_10 (not donors_100), and at 100 donors_100', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    for (let i = 0; i < 10; i++) await createGift(db, { fundraiserId: f.id, amount: 100 });
    await settle();
    expect(kindsOf((await list(owner.id)).body)).toEqual(['donors_10']);
    await db('fundraiser_counter_shards').insert({ fundraiser_id: f.id, shard: 99, donor_count: 89 });
    await createGift(db, { fundraiserId: f.id, amount: 100 });
    await settle();
    expect(kindsOf((await list(owner.id)).body)).toEqual(['donors_10', 'donors_100']);
  });

  it('when a campaign has 9 donors, then no donor achievement is earned', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    for (let i = 0; i < 9; i++) await createGift(db, { fundraiserId: f.id, amount: 100 });
    await settle();
    expect((await list(owner.id)).body.data).toEqual([]);
  });

  it('when goal_reached and update.posted are emitted twice, then goal_reached and first_update are each earned once', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    for (let i = 0; i < 2; i++) {
      await db.transaction(async (trx) => {
        await emit(trx, 'fundraiser.goal_reached', { fundraiser_id: f.id, holder_user_id: owner.id });
        await emit(trx, 'update.posted', { update_id: randomUUID(), fundraiser_id: f.id, author_user_id: owner.id, created_at: new Date().toISOString() });
      });
      await settle();
    }
    expect(kindsOf((await list(owner.id)).body)).toEqual(['first_update', 'goal_reached']);
  });

  it('when a campaign is published past the gate, then its owner earns first_campaign_live', async () => {
    const u = await createUser(db, { private_contact_verified: true });
    const res = await request(t.app).post(`${api}/fundraisers`).set(await authHeaders(t, u)).send({
      title: `Live campaign ${randomUUID()}`,
      summary: 'Help us rebuild',
      story_html: '<p>Our community centre burned down and we need to rebuild it.</p>',
      goal_amount_cents: 500_000,
      cover_image: 'https://img.example.test/cover.jpg',
      status: 'active',
    });
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('active');
    await settle();
    expect(kindsOf((await list(u.id)).body)).toEqual(['first_campaign_live']);
  });

  it('when staff approve a pending campaign, then its owner earns first_campaign_live', async () => {
    const staff = await createUser(db, { roles: ['user', 'staff'] });
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id, { status: 'pending' });
    await settle();
    expect((await list(owner.id)).body.data).toEqual([]);
    const res = await request(t.app).post(`${api}/admin/fundraisers/${f.id}/approve`).set(await authHeaders(t, staff));
    expect(res.status).toBe(200);
    await settle();
    expect(kindsOf((await list(owner.id)).body)).toEqual(['first_campaign_live']);
  });
});

describe('GET /users/{id}/achievements', () => {
  it('when lang is ru, uk or es, then labels are in that language; Accept-Language is the fallback', async () => {
    const { holder } = await earnedCard();
    expect((await list(holder.id, undefined, '?lang=ru')).body.data[0].label).toBe('Первая новость');
    expect((await list(holder.id, undefined, '?lang=uk')).body.data[0].label).toBe('Перша новина');
    expect((await list(holder.id, undefined, '?lang=es')).body.data[0].label).toBe('Primera actualización');
    const res = await request(t.app).get(`${api}/users/${holder.id}/achievements`).set('Accept-Language', 'es-ES,es;q=0.9');
    expect(res.body.data[0].label).toBe('Primera actualización');
  });

  it('when the profile is private, then only its owner sees the achievements', async () => {
    const { holder } = await earnedCard();
    await db('users').where({ id: holder.id }).update({ profile_private: true });
    expect((await list(holder.id)).body).toEqual({ data: [] });
    const other = await createUser(db);
    expect((await list(holder.id, other)).body).toEqual({ data: [] });
    expect(kindsOf((await list(holder.id, holder)).body)).toEqual(['first_update']);
  });

  it('when the id is unknown or the account inactive, then 404; when not a uuid, then 400', async () => {
    expect((await list(randomUUID())).status).toBe(404);
    const { holder } = await earnedCard();
    await db('users').where({ id: holder.id }).update({ status: 'suspended' });
    expect((await list(holder.id)).status).toBe(404);
    const bad = await request(t.app).get(`${api}/users/not-a-uuid/achievements`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it('when the first gift was anonymous, then only the donor sees it, its card names no campaign, and others get 404 for the card', async () => {
    const owner = await createUser(db);
    const donor = await createUser(db, { name: 'Quiet Quinn' });
    const f = await createFundraiser(db, owner.id);
    await createGift(db, { fundraiserId: f.id, donorUserId: donor.id, anonymous: true });
    await settle();
    expect((await list(donor.id)).body).toEqual({ data: [] });
    const mine = await list(donor.id, donor);
    expect(kindsOf(mine.body)).toEqual(['first_gift']);
    const code = mine.body.data[0].code;
    expect((await request(t.app).get(`${api}/achievements/${code}`)).status).toBe(404);
    expect((await request(t.app).get(`${api}/cards/${code}/share/og.png`)).status).toBe(404);
    expect((await request(t.app).get(`${api}/cards/${code}/qr.svg`)).status).toBe(404);
    const own = await request(t.app).get(`${api}/achievements/${code}`).set(await authHeaders(t, donor));
    expect(own.status).toBe(200);
    expect(own.body.data.fundraiser).toBeNull();
    const home = await request(createTestApp().app).get(`${api}/home/activity?limit=50`);
    expect(JSON.stringify(home.body)).not.toContain(code);
  });
});

describe('GET /achievements/{code}', () => {
  it('when a guest reads a card, then it answers the label, earner, campaign, page URL and image URLs', async () => {
    const { holder, f, code } = await earnedCard({ name: 'Ada Card' });
    const res = await request(t.app).get(`${api}/achievements/${code}?lang=es`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      code,
      kind: 'first_update',
      label: 'Primera actualización',
      earned_at: expect.any(String),
      user: { id: holder.id, name: 'Ada Card', avatar: null, profile_slug: expect.any(String) },
      fundraiser: { id: f.id, title: f.title, slug: f.slug },
      url: `${t.ctx.config.SITE_URL}/cards/${code}`,
      images: {
        og: `${t.ctx.config.BASE_URL}/cards/${code}/share/og.png`,
        square: `${t.ctx.config.BASE_URL}/cards/${code}/share/square.png`,
        story: `${t.ctx.config.BASE_URL}/cards/${code}/share/story.png`,
        qr: `${t.ctx.config.BASE_URL}/cards/${code}/qr.svg`,
      },
    });
    expect(code).not.toContain('first_update');
  });

  it('when the campaign turns private, then the card names no campaign', async () => {
    const { f, code } = await earnedCard();
    await db('fundraisers').where({ id: f.id }).update({ visibility: 'private' });
    expect((await request(t.app).get(`${api}/achievements/${code}`)).body.data.fundraiser).toBeNull();
  });

  it('when the earner\'s profile is private, then others get 404 and the earner the card', async () => {
    const { holder, code } = await earnedCard();
    await db('users').where({ id: holder.id }).update({ profile_private: true });
    expect((await request(t.app).get(`${api}/achievements/${code}`)).status).toBe(404);
    expect((await request(t.app).get(`${api}/achievements/${code}`).set(await authHeaders(t, holder))).status).toBe(200);
  });

  it('when the code is unknown, then 404; when malformed, then 400', async () => {
    expect((await request(t.app).get(`${api}/achievements/AAAAAAAAAAAAAAAA`)).status).toBe(404);
    expect((await request(t.app).get(`${api}/achievements/first_update`)).status).toBe(400);
    expect((await request(t.app).get(`${api}/achievements/${'x'.repeat(300)}`)).status).toBe(400);
  });
});

describe('card images', () => {
  it.each([
    ['og.png', 1200, 630],
    ['square.png', 1080, 1080],
    ['story.png', 1080, 1920],
  ])('when %s is asked for, then a PNG of %ix%i with public max-age=30 and an ETag answers', async (asset, width, height) => {
    const { code } = await earnedCard();
    const res = await request(t.app).get(`${api}/cards/${code}/share/${asset}`).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(pngSize(res.body)).toEqual({ width, height });
    const again = await request(t.app).get(`${api}/cards/${code}/share/${asset}`).set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
  });

  it('when lang changes, then the image changes', async () => {
    const { code } = await earnedCard();
    const en = await request(t.app).get(`${api}/cards/${code}/share/og.png`).buffer(true);
    const ru = await request(t.app).get(`${api}/cards/${code}/share/og.png?lang=ru`).buffer(true);
    expect(ru.status).toBe(200);
    expect(Buffer.compare(en.body, ru.body)).not.toBe(0);
    expect((await request(t.app).get(`${api}/cards/${code}/share/og.png?lang=de`)).status).toBe(400);
  });

  it('when the asset is not one of the three or the code unknown, then 400 and 404', async () => {
    const { code } = await earnedCard();
    expect((await request(t.app).get(`${api}/cards/${code}/share/poster.png`)).status).toBe(400);
    expect((await request(t.app).get(`${api}/cards/AAAAAAAAAAAAAAAA/share/og.png`)).status).toBe(404);
  });

  it('when the earner makes their profile private, then the very next card image is 404 (no cached render outlives it)', async () => {
    const { holder, code } = await earnedCard();
    expect((await request(t.app).get(`${api}/cards/${code}/share/og.png`)).status).toBe(200);
    const patch = await request(t.app).patch(`${api}/users/me/profile`).set(await authHeaders(t, holder)).send({ is_private: true });
    expect(patch.status).toBe(200);
    expect((await request(t.app).get(`${api}/cards/${code}/share/og.png`)).status).toBe(404);
  });

  it('when qr.svg is asked for, then it is the QR code of the card page URL, cached 30 s', async () => {
    const { code } = await earnedCard();
    const res = await request(t.app).get(`${api}/cards/${code}/qr.svg`).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    const expected = await QRCode.toString(`${t.ctx.config.SITE_URL}/cards/${code}`, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(res.body.toString()).toBe(expected);
  });

  it('when the card-share cap is reached, then 429 with the generic message', async () => {
    const small = createTestApp({ env: { CARD_SHARE_RATE_LIMIT: '2' } });
    const { code } = await earnedCard();
    for (let i = 0; i < 2; i++) expect((await request(small.app).get(`${api}/cards/${code}/qr.svg`)).status).toBe(200);
    const res = await request(small.app).get(`${api}/cards/${code}/qr.svg`);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'Too many requests, please try again later.', retryAfter: 60 });
  });
});

describe('home activity', () => {
  const feed = async () => (await request(createTestApp().app).get(`${api}/home/activity?limit=50`).expect(200)).body.data as Array<Record<string, any>>;

  it('when an achievement is earned on a public campaign, then the feed lists it with its card code, label and campaign', async () => {
    const { f, code } = await earnedCard();
    const item = (await feed()).find((i) => i.kind === 'achievement' && i.achievement.code === code);
    expect(item).toEqual({ kind: 'achievement', at: expect.any(String), fundraiser: { id: f.id, title: f.title, slug: f.slug }, achievement: { code, label: 'First update' } });
  });

  it('when the earner\'s profile is private or the campaign is not public, then the feed leaves the achievement out', async () => {
    const a = await earnedCard();
    await db('users').where({ id: a.holder.id }).update({ profile_private: true });
    const b = await earnedCard();
    await db('fundraisers').where({ id: b.f.id }).update({ visibility: 'unlisted' });
    const text = JSON.stringify(await feed());
    expect(text).not.toContain(a.code);
    expect(text).not.toContain(b.code);
  });
});
