import request from 'supertest';
import sharp from 'sharp';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { startFakeServer, type FakeServer } from '../helpers/fake-http';
import { png, storageEnv } from '../helpers/media';

afterAll(closeDb);

let fake: FakeServer;
let pngB64: string;
const ok = () => ({ body: { created: 1, data: [{ b64_json: pngB64 }] } });

beforeAll(async () => {
  pngB64 = (await png(48, 32, '#10b981')).toString('base64');
  fake = await startFakeServer(ok);
});
afterAll(() => fake.close());
beforeEach(() => fake.answer(ok));

const appWithGen = () => createTestApp({ env: { ...storageEnv(), IMAGE_GEN_URL: `${fake.url}/v1`, IMAGE_GEN_API_KEY: 'sk-test-key' } });

async function generate(t: TestApp, headers: Record<string, string>, body: unknown = { prompt: 'A sunrise over a community garden' }) {
  return request(t.app).post('/api/v1/images/generate').set(headers).send(body as object);
}

describe('POST /images/generate', () => {
  test('when a signed-in user asks for a cover then 201 with the URL of the stored PNG, made through the OpenAI-compatible API', async () => {
    const t = appWithGen();
    const user = await createUser(t.ctx.db);
    fake.requests.length = 0;
    const res = await generate(t, await authHeaders(t, user), { prompt: '  <b>A sunrise</b>   over a\n garden ', style: 'watercolor' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: { url: expect.stringMatching(new RegExp(`^http://api\\.test/media/ai-covers/${user.id}/[0-9a-f-]{36}\\.png$`)) } });
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0];
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/v1/images/generations');
    expect(sent.headers.authorization).toBe('Bearer sk-test-key');
    expect(JSON.parse(sent.body)).toEqual({ prompt: 'A sunrise over a garden\n\nStyle: watercolor', n: 1, size: '1536x1024', response_format: 'b64_json' });
    const file = await request(t.app).get(new URL(res.body.data.url).pathname).buffer(true);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(await sharp(file.body as Buffer).metadata()).toMatchObject({ format: 'png', width: 48, height: 32 });
  });

  test('when IMAGE_GEN_URL is unset then 503 Image generation is not configured', async () => {
    const t = createTestApp({ env: storageEnv() });
    const user = await createUser(t.ctx.db);
    const res = await generate(t, await authHeaders(t, user));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'Image generation is not configured' });
  });

  test('when no credential is sent then 401', async () => {
    const res = await generate(appWithGen(), {});
    expect(res.status).toBe(401);
  });

  test('when the prompt is missing, too short once markup is removed, too long or the style too long then 400 with details', async () => {
    const t = appWithGen();
    const h = await authHeaders(t, await createUser(t.ctx.db));
    fake.requests.length = 0;
    for (const body of [{}, { prompt: 42 }, { prompt: '<p> </p>' }, { prompt: 'x'.repeat(1001) }, { prompt: 'A garden', style: 's'.repeat(41) }]) {
      const res = await generate(t, h, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'Validation failed', details: expect.any(Array) });
    }
    expect(fake.requests).toHaveLength(0);
  });

  test('when the image service fails or answers no image then 502, and nothing is stored', async () => {
    const t = appWithGen();
    const h = await authHeaders(t, await createUser(t.ctx.db));
    fake.answer(() => ({ status: 500, body: { error: { message: 'boom' } } }));
    expect((await generate(t, h)).status).toBe(502);
    fake.answer(() => ({ body: { data: [{ url: 'http://elsewhere.test/x.png' }] } }));
    expect((await generate(t, h)).status).toBe(502);
    fake.answer(() => ({ body: { data: [{ b64_json: Buffer.from('not an image').toString('base64') }] } }));
    const res = await generate(t, h);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: 'Image generation failed' });
  });

  test('when a user has generated 10 images within the hour then the 11th answers 429 with the hourly message and RateLimit headers', async () => {
    const t = appWithGen();
    const h = await authHeaders(t, await createUser(t.ctx.db));
    for (let i = 0; i < 10; i++) expect((await generate(t, h)).status).toBe(201);
    const res = await generate(t, h);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'You have generated several images in a short time. Please try again later.', retryAfter: 3600 });
    expect(res.headers['ratelimit-policy']).toBe('10;w=3600');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
    // Another account has its own buckets.
    expect((await generate(t, await authHeaders(t, await createUser(t.ctx.db)))).status).toBe(201);
  });

  test('when a user has generated 30 images in a day then the 31st answers 429 with the daily message', async () => {
    const t = appWithGen();
    const user = await createUser(t.ctx.db);
    const realNow = Date.now.bind(Date);
    let shift = 0;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
    try {
      // Ten an hour for three hours: the hourly bucket empties each hour, the daily one keeps counting.
      for (let hour = 0; hour < 3; hour++) {
        shift = hour * 61 * 60_000;
        const h = await authHeaders(t, user);
        for (let i = 0; i < 10; i++) expect((await generate(t, h)).status).toBe(201);
      }
      shift = 3 * 61 * 60_000;
      const res = await generate(t, await authHeaders(t, user));
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ error: "You have reached today's limit for AI image generation. Please try again tomorrow.", retryAfter: 86400 });
      expect(res.headers['ratelimit-policy']).toBe('30;w=86400');
    } finally {
      clock.mockRestore();
    }
  });

  test('when a user makes more than 10 attempts a minute that fail upstream then the 11th answers a bare 429 without RateLimit headers', async () => {
    const t = appWithGen();
    const h = await authHeaders(t, await createUser(t.ctx.db));
    fake.answer(() => ({ status: 500, body: {} }));
    for (let i = 0; i < 10; i++) expect((await generate(t, h)).status).toBe(502);
    fake.requests.length = 0;
    const res = await generate(t, h);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'Too many AI requests. Please wait a minute and try again.', retryAfter: 60 });
    expect(Object.keys(res.headers).filter((k) => /^(x-)?ratelimit|^retry-after$/i.test(k))).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  test('when attempts fail upstream then they never spend the hourly quota: after the minute the user still generates', async () => {
    const t = appWithGen();
    const user = await createUser(t.ctx.db);
    fake.answer(() => ({ status: 500, body: {} }));
    for (let i = 0; i < 10; i++) expect((await generate(t, await authHeaders(t, user))).status).toBe(502);
    fake.answer(ok);
    const realNow = Date.now.bind(Date);
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 61_000);
    try {
      const res = await generate(t, await authHeaders(t, user));
      expect(res.status).toBe(201);
      // 201 itself shows the hourly bucket (10) was not spent; the headers are the daily bucket's, the last in the chain.
      expect(res.headers['ratelimit-remaining']).toBe('29');
    } finally {
      clock.mockRestore();
    }
  });
});
