import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import sharp from 'sharp';
import { closeDb, createTestApp } from '../helpers/app';
import { pendingJobs } from '../../src/jobs/admin';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = t.ctx.db;
const api = '/api/v1/fundraisers';
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  owner = await createUser(db, { name: 'Olga Owner', private_contact_verified: true });
  other = await createUser(db);
});

const mk = (over: Partial<FundraiserRow> = {}) => createFundraiser(db, owner.id, { beneficiary_contact: 'secret@x.test', ...over });

async function get(path: string, who: TestUser | null) {
  const r = request(t.app).get(path);
  return who ? r.set(await authHeaders(t, who)) : r;
}

describe('visibility of the detail reads', () => {
  const cases: Array<[string, Partial<FundraiserRow>, boolean]> = [
    ['active public', { status: 'active' }, true],
    ['paused', { status: 'paused' }, true],
    ['ended', { status: 'ended' }, true],
    ['active unlisted', { status: 'active', visibility: 'unlisted' }, true],
    ['draft', { status: 'draft' }, false],
    ['pending', { status: 'pending' }, false],
    ['rejected', { status: 'rejected' }, false],
    ['active private', { status: 'active', visibility: 'private' }, false],
    ['active deleted', { status: 'active', deleted_at: new Date() }, false],
  ];
  test.each(cases)('when the campaign is %s then guest/other see it only if public, the owner always', async (_n, over, isPublic) => {
    const f = await mk(over);
    for (const path of [`${api}/${f.id}`, `${api}/slug/${f.slug}`]) {
      const guest = await get(path, null);
      const someone = await get(path, other);
      const mine = await get(path, owner);
      expect(guest.status).toBe(isPublic ? 200 : 404);
      expect(someone.status).toBe(isPublic ? 200 : 404);
      expect(mine.status).toBe(200);
      if (!isPublic) expect(guest.body).toMatchObject({ error: 'Not found', message: 'Fundraiser not found' });
    }
  });
});

describe('GET /fundraisers/:id and /slug/:slug shapes', () => {
  test('when a guest reads by id then every id field is present and no slug-only or owner-only field', async () => {
    const f = await mk({ donor_count: 4, tags: ['a'], end_date: '2999-03-04' });
    const res = await get(`${api}/${f.id}`, null);
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('300');
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'id', 'title', 'slug', 'summary', 'story_html', 'goal_amount_cents', 'currency', 'status', 'visibility', 'type', 'is_project',
        'category', 'tags', 'cover_image', 'cover_image_focal_x', 'cover_image_focal_y', 'images', 'video_url', 'location',
        'beneficiary_name', 'owner_user_id', 'org_id', 'donor_count', 'source_language', 'end_date', 'approved_at', 'goal_reached_at',
        'cover_tint', 'donations_last_24h',
      ].sort(),
    );
    expect(res.body.data).toMatchObject({ id: f.id, donor_count: 4, end_date: '2999-03-04', tags: ['a'], donations_last_24h: 0 });
  });

  test('when a guest reads by slug then the slug-only fields are present', async () => {
    const f = await mk({ raised_cents: 2500, goal_amount_cents: 10000, donor_count: 3, donation_count: 5, shares_count: 2 });
    const res = await get(`${api}/slug/${f.slug}`, null);
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('300');
    expect(res.body.data).toMatchObject({
      total_raised_cents: 2500, donor_count: 3, donation_count: 5, percentage_funded: 25, shares_count: 2, category_name: null,
      profiles: { name: 'Olga Owner', avatar: null, email_verified: true, profile_slug: expect.any(String) },
    });
    expect(res.body.data.beneficiary_contact).toBeUndefined();
    expect(res.body.data.trustStatus).toBeUndefined();
  });

  test('when the owner reads then beneficiary_contact and trustStatus are included', async () => {
    const f = await mk();
    for (const path of [`${api}/${f.id}`, `${api}/slug/${f.slug}`]) {
      const res = await get(path, owner);
      expect(res.body.data.beneficiary_contact).toBe('secret@x.test');
      expect(res.body.data.trustStatus).toEqual({
        aiDecision: expect.stringMatching(/^(approve|flag|block)$/), trustScore: expect.any(Number), payoutHold: expect.any(Boolean),
        rejectionReasons: expect.any(Array), userMessages: expect.any(Array),
      });
    }
    const someone = await get(`${api}/${f.id}`, other);
    expect(someone.body.data.beneficiary_contact).toBeUndefined();
    expect(someone.body.data.trustStatus).toBeUndefined();
  });

  test('when trustStatus was read then it is served from the 15-minute cache', async () => {
    const f = await mk();
    const first = await get(`${api}/${f.id}`, owner);
    await db('fundraiser_reviews').where({ fundraiser_id: f.id }).update({ trust_score: 1 });
    const second = await get(`${api}/${f.id}`, owner);
    expect(second.body.data.trustStatus.trustScore).toBe(first.body.data.trustStatus.trustScore);
    expect(await t.ctx.cache.get(`fundraiser:trust:${f.id}`)).toBeDefined();
  });

  test('when lang has a stored translation then title, summary and story are overlaid (sanitised)', async () => {
    const f = await mk({ source_language: 'en' });
    await db('fundraiser_translations').insert({
      fundraiser_id: f.id, lang: 'es', title: 'Título', summary: 'Resumen', story_html: '<p>Historia<script>x</script></p>',
    });
    const es = await get(`${api}/${f.id}?lang=es`, null);
    expect(es.body.data).toMatchObject({ title: 'Título', summary: 'Resumen', story_html: '<p>Historia</p>' });
    const ru = await get(`${api}/slug/${f.slug}?lang=ru`, null);
    expect(ru.body.data.title).toBe(f.title);
    expect((await get(`${api}/${f.id}?lang=fr`, null)).status).toBe(400);
  });

  test('when the id is not a uuid or unknown then 400 / 404', async () => {
    expect((await get(`${api}/not-a-uuid`, null)).status).toBe(400);
    expect((await get(`${api}/${randomUUID()}`, null)).status).toBe(404);
    expect((await get(`${api}/slug/no-such-slug-${randomUUID()}`, null)).status).toBe(404);
  });
});

describe('cover_tint job', () => {
  async function png(r: number, g: number, b: number): Promise<string> {
    const buf = await sharp({ create: { width: 20, height: 20, channels: 3, background: { r, g, b } } }).png().toBuffer();
    return `data:image/png;base64,${buf.toString('base64')}`;
  }

  test('when a campaign is created with a cover then cover_tint is null until the job runs, then a light tint', async () => {
    const u = await createUser(db, { private_contact_verified: true });
    const res = await request(t.app).post(api).set(await authHeaders(t, u)).send({
      title: `Tint ${randomUUID()}`, goal_amount_cents: 1000, status: 'draft', cover_image: await png(200, 30, 30),
    });
    expect(res.status).toBe(201);
    expect(res.body.data.cover_tint).toBeNull();
    const [job] = await pendingJobs(db, 'cover-tint', `cover-tint:${res.body.data.id}`);
    expect(job).toBeDefined();
    await t.runJobs();
    const after = await get(`${api}/${res.body.data.id}`, u);
    expect(after.body.data.cover_tint).toMatch(/^#[0-9A-F]{6}$/);
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(after.body.data.cover_tint.slice(i, i + 2), 16));
    expect(r).toBe(255);
    expect(g).toBeGreaterThan(235);
    expect(g).toBeLessThan(r);
    expect(b).toBeLessThan(r);
  });

  test('when the cover is black and white then #F9F9FA; when the cover changes then the tint resets and is recomputed', async () => {
    const u = await createUser(db, { private_contact_verified: true });
    const created = await request(t.app).post(api).set(await authHeaders(t, u)).send({
      title: `Gray ${randomUUID()}`, goal_amount_cents: 1000, status: 'draft', cover_image: await png(120, 120, 120),
    });
    await t.runJobs();
    const id = created.body.data.id;
    expect((await get(`${api}/${id}`, u)).body.data.cover_tint).toBe('#F9F9FA');
    const patched = await request(t.app).patch(`${api}/${id}`).set(await authHeaders(t, u)).send({ cover_image: await png(20, 40, 220) });
    expect(patched.body.data.cover_tint).toBeNull();
    await t.runJobs();
    const tint: string = (await get(`${api}/${id}`, u)).body.data.cover_tint;
    expect(parseInt(tint.slice(5, 7), 16)).toBe(255); // blue dominates
  });

  test('when a development server gets a cover served over http from 127.0.0.1 then the job fetches it; production refuses loopback', async () => {
    const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 30, g: 120, b: 220 } } }).png().toBuffer();
    const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(image));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cover.png`;
    try {
      const tints: Record<string, unknown> = {};
      for (const env of ['development', 'production']) {
        const app = createTestApp({ env: { NODE_ENV: env } });
        const u = await createUser(db, { private_contact_verified: true });
        const res = await request(app.app).post(api).set(await authHeaders(app, u)).send({
          title: `Loopback ${env} ${randomUUID()}`, goal_amount_cents: 1000, status: 'draft', cover_image: url,
        });
        expect(res.status).toBe(201);
        await app.runJobs();
        tints[env] = (await db('fundraisers').where({ id: res.body.data.id }).first()).cover_tint;
      }
      expect(tints.development).toMatch(/^#[0-9A-F]{6}$/);
      expect(tints.development).not.toBe('#F9F9FA');
      expect(tints.production).toBeNull();
    } finally {
      server.close();
    }
  });

  test('when there is no cover then cover_tint stays null and no job is queued', async () => {
    const u = await createUser(db);
    const res = await request(t.app).post(api).set(await authHeaders(t, u)).send({ title: `No cover ${randomUUID()}`, goal_amount_cents: 1000, status: 'draft' });
    expect(res.body.data.cover_tint).toBeNull();
    expect(await pendingJobs(db, 'cover-tint', `cover-tint:${res.body.data.id}`)).toHaveLength(0);
  });
});

describe('GET /fundraisers/:id/stats', () => {
  test('when read then the stats object comes through the totals function', async () => {
    const f = await mk({ raised_cents: 5000, goal_amount_cents: 20000, donor_count: 2, donation_count: 3 });
    const res = await get(`${api}/${f.id}/stats`, null);
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('300');
    expect(res.body).toEqual({
      data: {
        fundraiser_id: f.id, title: f.title, goal_amount_cents: 20000, total_raised_cents: 5000, total_tips_cents: 0,
        donation_count: 3, donor_count: 2, recurring_donor_count: 0, percentage_funded: 25,
      },
    });
  });

  test('when the campaign is unreadable, unknown or the id is bad then 404 / 404 / 400', async () => {
    const f = await mk({ status: 'draft' });
    expect((await get(`${api}/${f.id}/stats`, null)).status).toBe(404);
    expect((await get(`${api}/${f.id}/stats`, owner)).status).toBe(200);
    expect((await get(`${api}/${randomUUID()}/stats`, null)).status).toBe(404);
    expect((await get(`${api}/x/stats`, null)).status).toBe(400);
  });
});

describe('shares', () => {
  const CHANNELS = ['facebook', 'x', 'whatsapp', 'telegram', 'email', 'sms', 'linkedin', 'copy_link', 'qr', 'other'];
  const zero = { shares: 0, visits: 0, donations: 0, raised_cents: 0 };

  test('when unshared then share-channels lists every channel with zeros (bare object)', async () => {
    const f = await mk();
    const res = await get(`${api}/${f.id}/share-channels`, null);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ total: zero, channels: Object.fromEntries(CHANNELS.map((c) => [c, zero])), unattributed: zero });
  });

  test('when shares are tracked then counts, shares_count and the sharer are recorded', async () => {
    const f = await mk();
    const anon = await request(t.app).post(`${api}/${f.id}/shares`).send({ channel: 'whatsapp' });
    expect(anon.status).toBe(201);
    expect(anon.body).toEqual({ data: { fundraiser_id: f.id, channel: 'whatsapp', shares_count: 1 } });
    const signed = await request(t.app).post(`${api}/${f.id}/shares`).set(await authHeaders(t, other)).send({ channel: 'whatsapp' });
    expect(signed.body.data.shares_count).toBe(2);
    const rows = await db('fundraiser_shares').where({ fundraiser_id: f.id }).orderBy('id');
    expect(rows.map((r) => r.user_id)).toEqual([null, other.id]);
    await db('fundraiser_share_visits').insert([
      { fundraiser_id: f.id, channel: 'whatsapp' }, { fundraiser_id: f.id, channel: null, via_endorser: true },
    ]);
    const ch = await get(`${api}/${f.id}/share-channels`, null);
    expect(ch.body.channels.whatsapp).toEqual({ shares: 2, visits: 1, donations: 0, raised_cents: 0 });
    expect(ch.body.unattributed).toEqual({ shares: 0, visits: 1, donations: 0, raised_cents: 0 });
    expect(ch.body.total).toEqual({ shares: 2, visits: 2, donations: 0, raised_cents: 0 });
    const slug = await get(`${api}/slug/${f.slug}`, null);
    expect(slug.body.data.shares_count).toBe(2);
    const impact = await get(`${api}/${f.id}/share-impact`, null);
    expect(impact.body).toEqual({ data: { visits: 2, endorser_visits: 1, donations: 0, raised_cents: 0 } });
  });

  test('when a share has a bad channel, a bad id or an unreadable campaign then 400 / 400 / 404', async () => {
    const f = await mk();
    expect((await request(t.app).post(`${api}/${f.id}/shares`).send({ channel: 'myspace' })).status).toBe(400);
    expect((await request(t.app).post(`${api}/bad/shares`).send({ channel: 'x' })).status).toBe(400);
    const d = await mk({ status: 'draft' });
    expect((await request(t.app).post(`${api}/${d.id}/shares`).send({ channel: 'x' })).status).toBe(404);
    expect((await get(`${api}/${d.id}/share-channels`, null)).status).toBe(404);
    expect((await get(`${api}/bad/share-channels`, null)).status).toBe(400);
  });

  test('when share-impact is read for an unshared campaign then zeros; non-uuid 400; unreadable 404', async () => {
    const f = await mk();
    expect((await get(`${api}/${f.id}/share-impact`, null)).body).toEqual({ data: { visits: 0, endorser_visits: 0, donations: 0, raised_cents: 0 } });
    expect((await get(`${api}/nope/share-impact`, null)).status).toBe(400);
    const p = await mk({ visibility: 'private' });
    expect((await get(`${api}/${p.id}/share-impact`, null)).status).toBe(404);
    expect((await get(`${api}/${p.id}/share-impact`, owner)).status).toBe(200);
  });
});

describe('public limiter', () => {
  test('when a client exceeds 300 detail reads a minute then 429', async () => {
    const t2 = createTestApp();
    const f = await mk();
    let last = 0;
    for (let i = 0; i < 301; i += 1) last = (await request(t2.app).get(`${api}/${f.id}/stats`)).status;
    expect(last).toBe(429);
  });
});
