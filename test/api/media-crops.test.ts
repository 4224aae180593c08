import request from 'supertest';
import sharp from 'sharp';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { png, storageEnv } from '../helpers/media';

afterAll(closeDb);

let t: TestApp;
let owner: TestUser;
let author: TestUser;
let stranger: TestUser;
let staff: TestUser;
let f: FundraiserRow;
let imageUrl: string;

beforeAll(async () => {
  t = createTestApp({ env: storageEnv() });
  owner = await createUser(t.ctx.db);
  author = await createUser(t.ctx.db);
  stranger = await createUser(t.ctx.db);
  staff = await createUser(t.ctx.db, { roles: ['user', 'staff'] });
  f = await createFundraiser(t.ctx.db, owner.id);
  const up = await request(t.app)
    .post(`/api/v1/fundraisers/${f.id}/media`)
    .set(await authHeaders(t, owner))
    .attach('file', await png(400, 300), 'photo.png');
  imageUrl = up.body.data.url;
});

async function crop(user: TestUser, body: Record<string, unknown>) {
  return request(t.app).post('/api/v1/image-crops').set(await authHeaders(t, user)).send(body);
}

async function original(user: TestUser | null, url: string) {
  const req = request(t.app).get('/api/v1/image-crops/original').query({ url });
  if (user) req.set(await authHeaders(t, user));
  return req;
}

describe('POST /image-crops', () => {
  test('when a stored image is cropped then 201 with the crop, rendered to the box and served', async () => {
    const res = await crop(author, { image_url: imageUrl, crop: { x: 10, y: 20, width: 120, height: 90 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: { id: expect.any(String), url: expect.stringMatching(/^http:\/\/api\.test\/media\/crops\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.png$/), original_url: imageUrl, crop: { x: 10, y: 20, width: 120, height: 90 } },
    });
    const file = await request(t.app).get(new URL(res.body.data.url).pathname).buffer(true).parse((r, cb) => {
      const c: Buffer[] = [];
      r.on('data', (d: Buffer) => c.push(d));
      r.on('end', () => cb(null, Buffer.concat(c)));
    });
    expect(await sharp(file.body as Buffer).metadata()).toMatchObject({ width: 120, height: 90, format: 'png' });
  });

  test('when the box leaves the image, or is not whole positive pixels, then 400 with details', async () => {
    const outside = await crop(author, { image_url: imageUrl, crop: { x: 300, y: 0, width: 101, height: 10 } });
    expect(outside.status).toBe(400);
    expect(outside.body.details).toEqual([{ path: 'body.crop', message: 'must lie inside the image (400x300)' }]);
    for (const box of [{ x: -1, y: 0, width: 1, height: 1 }, { x: 0, y: 0, width: 0, height: 1 }, { x: 0.5, y: 0, width: 1, height: 1 }, { x: 0, y: 0, width: 1e12, height: 1 }]) {
      expect((await crop(author, { image_url: imageUrl, crop: box })).status).toBe(400);
    }
  });

  test('when image_url is not an image this service stores then 400 and nothing is fetched', async () => {
    for (const url of ['https://img.example.test/cover.jpg', 'http://api.test/media/uploads/x/00000000-0000-0000-0000-000000000000.png', 'http://api.test/media/../../etc/passwd', 'x'.repeat(2049)]) {
      const res = await crop(author, { image_url: url, crop: { x: 0, y: 0, width: 1, height: 1 } });
      expect(res.status).toBe(400);
    }
  });

  test('when a guest crops then 401', async () => {
    expect((await request(t.app).post('/api/v1/image-crops').send({ image_url: imageUrl, crop: { x: 0, y: 0, width: 1, height: 1 } })).status).toBe(401);
  });
});

describe('GET /image-crops/original', () => {
  let authorCrop: string;
  let ownerCrop: string;

  beforeAll(async () => {
    authorCrop = (await crop(author, { image_url: imageUrl, crop: { x: 0, y: 0, width: 50, height: 50 } })).body.data.url;
    ownerCrop = (await crop(owner, { image_url: imageUrl, crop: { x: 100, y: 100, width: 60, height: 40 } })).body.data.url;
  });

  test("when the crop's author asks then 200 with the original and only their own crops", async () => {
    const res = await original(author, authorCrop);
    expect(res.status).toBe(200);
    expect(res.body.data.original_url).toBe(imageUrl);
    expect(res.body.data.crops.every((c: { url: string }) => c.url !== ownerCrop)).toBe(true);
    expect(res.body.data.crops).toContainEqual({ id: expect.any(String), url: authorCrop, crop: { x: 0, y: 0, width: 50, height: 50 }, created_at: expect.any(String) });
  });

  test("when the original image's owner or staff ask then 200 with every crop of it", async () => {
    for (const who of [owner, staff]) {
      const res = await original(who, authorCrop);
      expect(res.status).toBe(200);
      const urls = res.body.data.crops.map((c: { url: string }) => c.url);
      expect(urls).toEqual(expect.arrayContaining([authorCrop, ownerCrop]));
    }
  });

  test('when anyone else asks, or the URL is no crop, then 404', async () => {
    expect((await original(stranger, authorCrop)).status).toBe(404);
    expect((await original(stranger, imageUrl)).status).toBe(404);
    expect((await original(author, 'https://elsewhere.test/a.png')).status).toBe(404);
    expect((await original(author, 'http://api.test/media/crops/x/00000000-0000-0000-0000-000000000000.png')).status).toBe(404);
  });

  test('when the URL is longer than 2048 characters then 400; a guest 401', async () => {
    const long = `http://api.test/media/crops/x/${'a'.repeat(2100)}.png`;
    const res = await original(author, long);
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('query.url');
    expect((await original(null, authorCrop)).status).toBe(401);
  });
});

describe('PUT /fundraisers/{id}/outcome-report', () => {
  const put = async (user: TestUser, body: unknown, id = f.id) =>
    request(t.app).put(`/api/v1/fundraisers/${id}/outcome-report`).set(await authHeaders(t, user)).send(body as object);

  test('when no report was written then the slug read shows outcome_report null', async () => {
    const fresh = await createFundraiser(t.ctx.db, owner.id);
    const res = await request(t.app).get(`/api/v1/fundraisers/slug/${fresh.slug}`);
    expect(res.body.data.outcome_report).toBeNull();
  });

  test('when the owner writes the report then 200, sanitised, and the slug read shows it', async () => {
    const res = await put(owner, { body_html: '<p>We built it! <script>alert(1)</script><a href="javascript:x">x</a></p>', images: [imageUrl] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { body_html: '<p>We built it! <a rel="noopener noreferrer" target="_blank">x</a></p>', images: [imageUrl], updated_at: expect.any(String) } });
    const read = await request(t.app).get(`/api/v1/fundraisers/slug/${f.slug}`);
    expect(read.body.data.outcome_report).toEqual(res.body.data);
    // The {id} read has no slug-only fields.
    expect((await request(t.app).get(`/api/v1/fundraisers/${f.id}`)).body.data.outcome_report).toBeUndefined();
  });

  test('when the report is rewritten then it replaces the old one (images omitted = none)', async () => {
    await put(owner, { body_html: '<p>Second</p>' });
    const read = await request(t.app).get(`/api/v1/fundraisers/slug/${f.slug}`);
    expect(read.body.data.outcome_report).toMatchObject({ body_html: '<p>Second</p>', images: [] });
  });

  test('when the body has no text, too much text, bad or too many images then 400', async () => {
    expect((await put(owner, { body_html: '<p><script>x</script></p>' })).status).toBe(400);
    expect((await put(owner, { body_html: 'x'.repeat(20_001) })).status).toBe(400);
    expect((await put(owner, { body_html: '<p>ok</p>', images: ['javascript:alert(1)'] })).status).toBe(400);
    expect((await put(owner, { body_html: '<p>ok</p>', images: Array(21).fill('https://a.test/x.png') })).status).toBe(400);
    expect((await put(owner, {})).status).toBe(400);
  });

  test('when someone else writes, or the campaign is deleted, then 404', async () => {
    expect((await put(stranger, { body_html: '<p>mine</p>' })).status).toBe(404);
    const gone = await createFundraiser(t.ctx.db, owner.id, { deleted_at: new Date() });
    expect((await put(owner, { body_html: '<p>x</p>' }, gone.id)).status).toBe(404);
  });
});
