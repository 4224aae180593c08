import http from 'node:http';
import type { AddressInfo } from 'node:net';
import JSZip from 'jszip';
import request from 'supertest';
import sharp from 'sharp';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { png, storageEnv } from '../helpers/media';

afterAll(closeDb);

let t: TestApp;
let owner: TestUser;
let f: FundraiserRow;

/** Binary answers as Buffers (supertest only buffers text and JSON by itself). */
const binary = (req: request.Test) =>
  req.buffer(true).parse((res, cb) => {
    const c: Buffer[] = [];
    res.on('data', (d: Buffer) => c.push(d));
    res.on('end', () => cb(null, Buffer.concat(c)));
  });

const get = (path: string, app = t) => binary(request(app.app).get(`/api/v1${path}`));

beforeAll(async () => {
  t = createTestApp({ env: storageEnv() });
  owner = await createUser(t.ctx.db);
  f = await createFundraiser(t.ctx.db, owner.id, { title: 'Rebuild the Riverside Library', raised_cents: 1_234_500, goal_amount_cents: 2_500_000 });
});

describe('campaign share images', () => {
  test.each([
    ['og.png', 1200, 630],
    ['poster.png', 1080, 1080],
    ['story.png', 1080, 1920],
  ])('when %s is asked for a public campaign then a %ix%i PNG, public for 30 s, with an ETag that answers 304', async (file, width, height) => {
    const res = await get(`/fundraisers/slug/${f.slug}/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    // The site, on another origin, embeds them.
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(await sharp(res.body as Buffer).metadata()).toMatchObject({ format: 'png', width, height });
    const again = await request(t.app).get(`/api/v1/fundraisers/slug/${f.slug}/${file}`).set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
  });

  test('when the share kit is asked then a zip download holding the three PNGs at their sizes', async () => {
    const res = await get(`/fundraisers/slug/${f.slug}/share-kit.zip`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${f.slug}-share-kit.zip"`);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    const zip = await JSZip.loadAsync(res.body as Buffer);
    expect(Object.keys(zip.files).sort()).toEqual(['og.png', 'poster.png', 'story.png']);
    const sizes = await Promise.all(['og.png', 'poster.png', 'story.png'].map(async (n) => sharp(await zip.file(n)!.async('nodebuffer')).metadata()));
    expect(sizes.map((m) => [m.width, m.height])).toEqual([[1200, 630], [1080, 1080], [1080, 1920]]);
  });

  test('when the campaign is a draft, paused, private, deleted or unknown then 404 in the error shape', async () => {
    const draft = await createFundraiser(t.ctx.db, owner.id, { status: 'draft' });
    const paused = await createFundraiser(t.ctx.db, owner.id, { status: 'paused' });
    const priv = await createFundraiser(t.ctx.db, owner.id, { visibility: 'private' });
    const gone = await createFundraiser(t.ctx.db, owner.id, { deleted_at: new Date() });
    for (const slug of [draft.slug, paused.slug, priv.slug, gone.slug, 'no-such-campaign']) {
      for (const file of ['og.png', 'poster.png', 'story.png', 'share-kit.zip']) {
        const res = await request(t.app).get(`/api/v1/fundraisers/slug/${slug}/${file}`);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ error: 'Not found', message: 'Fundraiser not found' });
      }
    }
  });

  test('when lang is ru then the labels change; an unknown lang is 400; no lang follows the campaign language', async () => {
    const en = await get(`/fundraisers/slug/${f.slug}/og.png?lang=en`);
    const ru = await get(`/fundraisers/slug/${f.slug}/og.png?lang=ru`);
    expect(ru.status).toBe(200);
    expect(Buffer.compare(en.body as Buffer, ru.body as Buffer)).not.toBe(0);
    expect((await request(t.app).get(`/api/v1/fundraisers/slug/${f.slug}/og.png?lang=de`)).status).toBe(400);
    const uk = await createFundraiser(t.ctx.db, owner.id, { title: 'Відновимо бібліотеку', source_language: 'uk' });
    const byDefault = await get(`/fundraisers/slug/${uk.slug}/poster.png`);
    const asked = await get(`/fundraisers/slug/${uk.slug}/poster.png?lang=uk`);
    expect(Buffer.compare(byDefault.body as Buffer, asked.body as Buffer)).toBe(0);
  });

  test('when the campaign changes within 30 s then the cached image is served, and a new one once the entry expires', async () => {
    const c = await createFundraiser(t.ctx.db, owner.id, { title: 'Before the change' });
    const first = await get(`/fundraisers/slug/${c.slug}/og.png`);
    await t.ctx.db('fundraisers').where({ id: c.id }).update({ title: 'After the change' });
    const cached = await get(`/fundraisers/slug/${c.slug}/og.png`);
    expect(cached.headers.etag).toBe(first.headers.etag);
    await t.ctx.cache.del(`share-image:og:${c.slug}:-`);
    const fresh = await get(`/fundraisers/slug/${c.slug}/og.png`);
    expect(fresh.headers.etag).not.toBe(first.headers.etag);
  });

  test('when a campaign is made private, paused or deleted, then the very next image request is 404 (no cached render outlives it)', async () => {
    const changes: Array<Record<string, unknown>> = [{ visibility: 'private' }, { status: 'paused' }, { deleted_at: new Date() }];
    for (const change of changes) {
      const c = await createFundraiser(t.ctx.db, owner.id, { title: 'Soon hidden' });
      for (const file of ['og.png', 'poster.png', 'story.png']) expect((await get(`/fundraisers/slug/${c.slug}/${file}`)).status).toBe(200);
      await t.ctx.db('fundraisers').where({ id: c.id }).update(change);
      for (const file of ['og.png', 'poster.png', 'story.png', 'share-kit.zip']) {
        expect([JSON.stringify(change), file, (await request(t.app).get(`/api/v1/fundraisers/slug/${c.slug}/${file}`)).status]).toEqual([JSON.stringify(change), file, 404]);
      }
    }
  });

  test('when the cover is stored by the service then it is drawn; a remote cover is never fetched', async () => {
    const up = await request(t.app)
      .post(`/api/v1/fundraisers/${f.id}/media`)
      .set(await authHeaders(t, owner))
      .attach('file', await png(800, 600, '#ff0000'), 'red.png');
    const withCover = await createFundraiser(t.ctx.db, owner.id, { cover_image: up.body.data.url });
    const og = await get(`/fundraisers/slug/${withCover.slug}/og.png`);
    const { data } = await sharp(og.body as Buffer).extract({ left: 200, top: 300, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(240);
    expect(data[1]).toBeLessThan(20);
    expect(data[2]).toBeLessThan(20);

    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits += 1;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const remote = await createFundraiser(t.ctx.db, owner.id, { cover_image: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cover.png` });
      const res = await get(`/fundraisers/slug/${remote.slug}/og.png`);
      expect(res.status).toBe(200);
      expect(hits).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('GET /profiles/{idOrSlug}/share-image.png', () => {
  test('when a public profile is asked by slug or id then a 1200x630 PNG cached five minutes', async () => {
    const user = await createUser(t.ctx.db, { name: 'Ада Лавлейс' });
    const slug = (await t.ctx.db('users').where({ id: user.id }).first('profile_slug')).profile_slug as string;
    for (const key of [slug, user.id]) {
      const res = await get(`/profiles/${key}/share-image.png`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(await sharp(res.body as Buffer).metadata()).toMatchObject({ width: 1200, height: 630 });
    }
    expect((await get(`/profiles/${slug}/share-image.png?lang=es`)).status).toBe(200);
    expect((await request(t.app).get(`/api/v1/profiles/${slug}/share-image.png?lang=xx`)).status).toBe(400);
  });

  test('when a profile is made private through PATCH /users/me/profile, then the very next share-image request is 404', async () => {
    const user = await createUser(t.ctx.db);
    const slug = (await t.ctx.db('users').where({ id: user.id }).first('profile_slug')).profile_slug as string;
    for (const key of [slug, user.id]) expect((await get(`/profiles/${key}/share-image.png`)).status).toBe(200);
    const patch = await request(t.app).patch('/api/v1/users/me/profile').set(await authHeaders(t, user)).send({ is_private: true });
    expect(patch.status).toBe(200);
    for (const key of [slug, user.id]) expect((await request(t.app).get(`/api/v1/profiles/${key}/share-image.png`)).status).toBe(404);
  });

  test('when a slug is given up and taken by another account, then its card is the new holder\'s at once', async () => {
    const first = await createUser(t.ctx.db, { name: 'First Holder' });
    const second = await createUser(t.ctx.db, { name: 'Second Holder' });
    const slug = `handle-${Date.now().toString(36)}`;
    await t.ctx.db('users').where({ id: first.id }).update({ profile_slug: slug });
    const before = await get(`/profiles/${slug}/share-image.png`);
    expect(before.status).toBe(200);
    await t.ctx.db('users').where({ id: first.id }).update({ profile_slug: `${slug}-old` });
    await t.ctx.db('users').where({ id: second.id }).update({ profile_slug: slug });
    const after = await get(`/profiles/${slug}/share-image.png`);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.headers.etag).toBe((await get(`/profiles/${second.id}/share-image.png`)).headers.etag);
  });

  test('when the profile is private, banned or missing then 404', async () => {
    const priv = await createUser(t.ctx.db);
    await t.ctx.db('users').where({ id: priv.id }).update({ profile_private: true });
    const banned = await createUser(t.ctx.db, { status: 'banned' });
    for (const id of [priv.id, banned.id, '00000000-0000-4000-8000-000000000000', 'nobody-here']) {
      const res = await request(t.app).get(`/api/v1/profiles/${id}/share-image.png`);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Not found');
    }
  });
});
