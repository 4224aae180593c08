import request from 'supertest';
import sharp from 'sharp';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { mp4Head, phoneJpeg, png, storageEnv, streamUpload, webmHead } from '../helpers/media';

afterAll(closeDb);

const MB = 1024 * 1024;
let t: TestApp;
let owner: TestUser;
let stranger: TestUser;
let f: FundraiserRow;

beforeAll(async () => {
  t = createTestApp({ env: storageEnv() });
  owner = await createUser(t.ctx.db);
  stranger = await createUser(t.ctx.db);
  f = await createFundraiser(t.ctx.db, owner.id);
});

async function upload(user: TestUser | null, file: Buffer, opts: { filename?: string; contentType?: string; fid?: string; app?: TestApp } = {}) {
  const app = opts.app ?? t;
  const req = request(app.app).post(`/api/v1/fundraisers/${opts.fid ?? f.id}/media`);
  if (user) req.set(await authHeaders(app, user));
  return req.attach('file', file, { filename: opts.filename ?? 'upload.bin', contentType: opts.contentType ?? 'application/octet-stream' });
}

/** The stored bytes behind an upload URL, fetched through the service's /media/ route. */
async function served(url: string): Promise<request.Response> {
  const path = new URL(url).pathname;
  return request(t.app).get(path).buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });
}

describe('POST /fundraisers/{id}/media', () => {
  test('when the owner uploads a PNG then 201 with the upload, and its URL serves the stored image', async () => {
    const res = await upload(owner, await png(320, 200), { filename: 'cover.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: { id: expect.any(String), kind: 'image', url: expect.stringMatching(/^http:\/\/api\.test\/media\/uploads\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.png$/), content_type: 'image/png', bytes: expect.any(Number), width: 320, height: 200 },
    });
    const file = await served(res.body.data.url);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(file.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect((file.body as Buffer).length).toBe(res.body.data.bytes);
    expect(await sharp(file.body as Buffer).metadata()).toMatchObject({ format: 'png', width: 320, height: 200 });
    const row = await t.ctx.db('media_uploads').where({ id: res.body.data.id }).first();
    expect(row).toMatchObject({ fundraiser_id: f.id, owner_user_id: owner.id, kind: 'image' });
  });

  test('when a phone JPEG carries EXIF (GPS, camera, orientation) then the stored image has none and is turned upright', async () => {
    const jpeg = await phoneJpeg(300, 100);
    expect(await sharp(jpeg).metadata()).toMatchObject({ orientation: 6, exif: expect.any(Buffer) });
    const res = await upload(owner, jpeg, { filename: 'IMG_0001.JPG', contentType: 'image/jpeg' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ content_type: 'image/jpeg', width: 100, height: 300 });
    const stored = (await served(res.body.data.url)).body as Buffer;
    const meta = await sharp(stored).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.iptc).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect([meta.width, meta.height]).toEqual([100, 300]);
    expect(stored.includes(Buffer.from('secret-owner'))).toBe(false);
    expect(stored.includes(Buffer.from('PhoneCo'))).toBe(false);
  });

  test('when the name and part type lie then the type comes from the bytes: a PNG called notes.txt is stored as PNG', async () => {
    const res = await upload(owner, await png(10, 10), { filename: 'notes.txt', contentType: 'text/plain' });
    expect(res.status).toBe(201);
    expect(res.body.data.content_type).toBe('image/png');
    expect(res.body.data.url).toMatch(/\.png$/);
  });

  test('when the bytes are no accepted type (HTML called photo.jpg) then 415 with the accepted types, nothing stored', async () => {
    const before = await t.ctx.db('media_uploads').count<{ n: string }[]>({ n: '*' });
    const res = await upload(owner, Buffer.from('<html><script>alert(1)</script></html>'.repeat(20)), { filename: 'photo.jpg', contentType: 'image/jpeg' });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ error: 'Unsupported media type', accepted: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'video/mp4', 'video/webm'] });
    const after = await t.ctx.db('media_uploads').count<{ n: string }[]>({ n: '*' });
    expect(after[0].n).toBe(before[0].n);
  });

  test('when the bytes start like a PNG but are not a readable image then 415', async () => {
    const head = (await png(10, 10)).subarray(0, 40);
    const res = await upload(owner, Buffer.concat([head, Buffer.alloc(5000, 7)]));
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('Unsupported media type');
  });

  test('when an animated GIF is uploaded then its frames are kept and height is one frame', async () => {
    const frame = (c: string) => sharp({ create: { width: 40, height: 30, channels: 3, background: c } }).raw().toBuffer();
    const frames = Buffer.concat([await frame('#ff0000'), await frame('#00ff00')]);
    const gif = await sharp(frames, { raw: { width: 40, height: 60, channels: 3, pageHeight: 30 } } as never).gif({ loop: 0 }).toBuffer();
    const res = await upload(owner, gif, { filename: 'a.gif' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ content_type: 'image/gif', width: 40, height: 30 });
    expect((await sharp((await served(res.body.data.url)).body as Buffer).metadata()).pages).toBe(2);
  });

  test('when a WebP is uploaded then it is stored as WebP', async () => {
    const webp = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#10b981' } }).webp().toBuffer();
    const res = await upload(owner, webp);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ content_type: 'image/webp', width: 64, height: 48 });
  });

  test('when an image is larger than 10 MB then 413 with max_bytes, and one of exactly 10 MB of PNG bytes is judged as an image', async () => {
    const head = (await png(10, 10)).subarray(0, 64);
    const over = await upload(owner, Buffer.concat([head, Buffer.alloc(10 * MB + 1 - head.length)]));
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: 'Payload too large', max_bytes: 10 * MB });
    // At the limit the size passes and the bytes are decoded (these are not a real image: 415, not 413).
    const at = await upload(owner, Buffer.concat([head, Buffer.alloc(10 * MB - head.length)]));
    expect(at.status).toBe(415);
  });

  test('when an MP4 or WebM video is uploaded with features.fundraiser_video on then 201 kind video, stored as sent', async () => {
    const mp4 = Buffer.concat([mp4Head(), Buffer.alloc(20_000, 1)]);
    const res = await upload(owner, mp4, { filename: 'clip.mov' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ kind: 'video', content_type: 'video/mp4', bytes: mp4.length, width: null, height: null });
    expect(Buffer.compare((await served(res.body.data.url)).body as Buffer, mp4)).toBe(0);
    const webm = await upload(owner, Buffer.concat([webmHead(), Buffer.alloc(9000, 2)]));
    expect(webm.status).toBe(201);
    expect(webm.body.data.content_type).toBe('video/webm');
  });

  test('when a video is uploaded with features.fundraiser_video off then 403 with feature_key, while images still go through', async () => {
    const t2 = createTestApp({ env: storageEnv() });
    jest.spyOn(t2.ctx.flags, 'isEnabled').mockImplementation(async (k) => k !== 'features.fundraiser_video');
    const res = await upload(owner, Buffer.concat([mp4Head(), Buffer.alloc(5000)]), { app: t2 });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'Feature disabled', feature_key: 'features.fundraiser_video' });
    expect((await upload(owner, await png(8, 8), { app: t2 })).status).toBe(201);
  });

  test('when a video is larger than 200 MB then 413 as the stream crosses the limit; 200 MB + 1 byte is refused', async () => {
    const headers = await authHeaders(t, owner);
    const res = await streamUpload(t.app, `/api/v1/fundraisers/${f.id}/media`, headers, { head: mp4Head(), totalBytes: 200 * MB + 1 });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: 'Payload too large', max_bytes: 200 * MB });
  }, 120_000);

  test('when the request has no file field then 400 with details; a JSON body is 415; a broken multipart body is 400', async () => {
    const h = await authHeaders(t, owner);
    const none = await request(t.app).post(`/api/v1/fundraisers/${f.id}/media`).set(h).field('caption', 'hello');
    expect(none.status).toBe(400);
    expect(none.body.details).toEqual([{ path: 'body.file', message: 'Required' }]);
    const json = await request(t.app).post(`/api/v1/fundraisers/${f.id}/media`).set(h).send({ file: 'x' });
    expect(json.status).toBe(415);
    const broken = await request(t.app).post(`/api/v1/fundraisers/${f.id}/media`).set(h).set('Content-Type', 'multipart/form-data').send('garbage');
    expect(broken.status).toBe(400);
    const empty = await upload(owner, Buffer.alloc(0));
    expect(empty.status).toBe(400);
  });

  test('when a second file part is sent then 400', async () => {
    const res = await request(t.app)
      .post(`/api/v1/fundraisers/${f.id}/media`)
      .set(await authHeaders(t, owner))
      .attach('file', await png(5, 5), 'a.png')
      .attach('file', await png(5, 5), 'b.png');
    expect(res.status).toBe(400);
  });

  test('when someone else, a guest or anyone on a deleted campaign uploads then 404/401, and a non-uuid id 400', async () => {
    expect((await upload(stranger, await png(5, 5))).status).toBe(404);
    expect((await upload(null, await png(5, 5))).status).toBe(401);
    const gone = await createFundraiser(t.ctx.db, owner.id, { deleted_at: new Date() });
    expect((await upload(owner, await png(5, 5), { fid: gone.id })).status).toBe(404);
    expect((await upload(owner, await png(5, 5), { fid: 'nope' })).status).toBe(400);
  });
});

describe('GET /media/{area}/{owner}/{file}', () => {
  test('when a byte range is asked then 206 with Content-Range; an unsatisfiable one 416; an unknown file 404', async () => {
    const mp4 = Buffer.concat([mp4Head(), Buffer.alloc(1000, 3)]);
    const up = await upload(owner, mp4);
    const path = new URL(up.body.data.url).pathname;
    const part = await request(t.app).get(path).set('Range', 'bytes=4-11').buffer(true).parse((res, cb) => {
      const c: Buffer[] = [];
      res.on('data', (d: Buffer) => c.push(d));
      res.on('end', () => cb(null, Buffer.concat(c)));
    });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 4-11/${mp4.length}`);
    expect((part.body as Buffer).toString()).toBe('ftypisom');
    const bad = await request(t.app).get(path).set('Range', `bytes=${mp4.length}-`);
    expect(bad.status).toBe(416);
    expect(bad.headers['content-range']).toBe(`bytes */${mp4.length}`);
    expect((await request(t.app).get('/media/uploads/abc/00000000-0000-0000-0000-000000000000.png')).status).toBe(404);
    expect((await request(t.app).get('/media/uploads/abc/..%2F..%2Fetc%2Fpasswd')).status).toBe(400);
  });
});

describe('media limiter', () => {
  test('when 30 uploads and outcome reports were made in the window then the 31st answers 429 with the media message', async () => {
    const t3 = createTestApp({ env: storageEnv() });
    const h = await authHeaders(t3, owner);
    for (let i = 0; i < 15; i += 1) {
      const up = await request(t3.app).post(`/api/v1/fundraisers/${f.id}/media`).set(h).attach('file', await png(4, 4), 'x.png');
      expect(up.status).toBe(201);
      const rep = await request(t3.app).put(`/api/v1/fundraisers/${f.id}/outcome-report`).set(h).send({ body_html: `<p>Report ${i}</p>` });
      expect(rep.status).toBe(200);
    }
    const res = await request(t3.app).post(`/api/v1/fundraisers/${f.id}/media`).set(h).attach('file', await png(4, 4), 'x.png');
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'Too many media uploads. Please try again in a few minutes.', retryAfter: 900 });
    expect(res.headers['ratelimit-policy']).toBe('30;w=900');
  });
});
