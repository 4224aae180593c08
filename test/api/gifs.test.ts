import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../helpers/fake-http';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const tenorAnswer = () => ({
  body: {
    results: [
      { id: 't1', title: 'Party', media_formats: { gif: { url: 'https://media.tenor.test/t1.gif', dims: [498, 280] }, tinygif: { url: 'https://media.tenor.test/t1-tiny.gif', dims: [220, 124] } } },
      { id: 't2', title: '', content_description: 'Thank you', media_formats: { gif: { url: 'https://media.tenor.test/t2.gif', dims: [320, 320] } } },
      { id: 'broken', media_formats: {} },
    ],
    next: '2',
  },
});
const giphyAnswer = () => ({
  body: {
    data: [
      { id: 'g1', title: 'Thanks GIF', images: { original: { url: 'https://media.giphy.test/g1.gif', width: '480', height: '270' }, fixed_width_small: { url: 'https://media.giphy.test/g1-s.gif' } } },
    ],
  },
});

let tenor: FakeServer;
let giphy: FakeServer;
beforeAll(async () => {
  tenor = await startFakeServer(tenorAnswer);
  giphy = await startFakeServer(giphyAnswer);
});
afterAll(async () => {
  await tenor.close();
  await giphy.close();
});

const tenorApp = () => createTestApp({ env: { GIF_PROVIDER: 'tenor', GIF_API_KEY: 'tenor-key', GIF_API_URL: tenor.url } });
const giphyApp = () => createTestApp({ env: { GIF_PROVIDER: 'giphy', GIF_API_KEY: 'giphy-key', GIF_API_URL: giphy.url } });
const params = (r: RecordedRequest) => Object.fromEntries(new URL(r.url, 'http://x').searchParams);

describe('GET /gifs/trending and /gifs/search', () => {
  test('when Tenor is configured then trending answers its GIFs in the spec shape, with locale, paging and the safe filter', async () => {
    const t = tenorApp();
    tenor.requests.length = 0;
    const res = await request(t.app).get('/api/v1/gifs/trending?limit=2&offset=4&lang=uk');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { id: 't1', url: 'https://media.tenor.test/t1.gif', preview_url: 'https://media.tenor.test/t1-tiny.gif', width: 498, height: 280, title: 'Party' },
        { id: 't2', url: 'https://media.tenor.test/t2.gif', preview_url: 'https://media.tenor.test/t2.gif', width: 320, height: 320, title: 'Thank you' },
      ],
    });
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(tenor.requests).toHaveLength(1);
    expect(new URL(tenor.requests[0].url, 'http://x').pathname).toBe('/v2/featured');
    expect(params(tenor.requests[0])).toMatchObject({ key: 'tenor-key', limit: '2', pos: '4', locale: 'uk_UA', contentfilter: 'high' });
  });

  test('when a search term has runs of whitespace and is long then it is collapsed and cut to 50 characters before reaching the provider', async () => {
    const t = tenorApp();
    tenor.requests.length = 0;
    const long = `  thank \t you\n\n  so   much ${'x'.repeat(80)}`;
    const res = await request(t.app).get('/api/v1/gifs/search').query({ q: long, lang: 'ru' });
    expect(res.status).toBe(200);
    const sent = params(tenor.requests[0]);
    expect(sent.q).toBe(`thank you so much ${'x'.repeat(32)}`);
    expect(sent.q).toHaveLength(50);
    expect(sent.locale).toBe('ru_RU');
    expect(new URL(tenor.requests[0].url, 'http://x').pathname).toBe('/v2/search');
  });

  test('when lang is not one of en, ru, uk, es then it is treated as en', async () => {
    const t = giphyApp();
    giphy.requests.length = 0;
    for (const lang of ['de', 'EN-us', '']) expect((await request(t.app).get('/api/v1/gifs/search').query({ q: `hi ${lang}`, lang })).status).toBe(200);
    expect(giphy.requests.map((r) => params(r).lang)).toEqual(['en', 'en', 'en']);
  });

  test('when GIPHY is configured then search maps its answer, and lang, limit, offset and rating are sent', async () => {
    const t = giphyApp();
    giphy.requests.length = 0;
    const res = await request(t.app).get('/api/v1/gifs/search?q=thanks&limit=500&offset=-3&lang=es');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [{ id: 'g1', url: 'https://media.giphy.test/g1.gif', preview_url: 'https://media.giphy.test/g1-s.gif', width: 480, height: 270, title: 'Thanks GIF' }] });
    expect(new URL(giphy.requests[0].url, 'http://x').pathname).toBe('/v1/gifs/search');
    expect(params(giphy.requests[0])).toMatchObject({ api_key: 'giphy-key', q: 'thanks', limit: '50', offset: '0', lang: 'es', rating: 'g' });
  });

  test('when the same read repeats within a minute then it is served from the cache without asking the provider again', async () => {
    const t = giphyApp();
    giphy.requests.length = 0;
    await request(t.app).get('/api/v1/gifs/trending');
    const again = await request(t.app).get('/api/v1/gifs/trending');
    expect(again.status).toBe(200);
    expect(giphy.requests).toHaveLength(1);
    expect(new URL(giphy.requests[0].url, 'http://x').pathname).toBe('/v1/gifs/trending');
  });

  test('when no provider is configured, or the term is empty, then { data: [] }', async () => {
    const t = createTestApp();
    expect((await request(t.app).get('/api/v1/gifs/trending')).body).toEqual({ data: [] });
    expect((await request(t.app).get('/api/v1/gifs/search?q=cats')).body).toEqual({ data: [] });
    const t2 = tenorApp();
    tenor.requests.length = 0;
    expect((await request(t2.app).get('/api/v1/gifs/search?q=%20%20')).body).toEqual({ data: [] });
    expect(tenor.requests).toHaveLength(0);
  });

  test('when the provider fails then 502, and an oversized term 400', async () => {
    const t = createTestApp({ env: { GIF_PROVIDER: 'giphy', GIF_API_URL: giphy.url } });
    giphy.answer(() => ({ status: 500, body: {} }));
    try {
      const res = await request(t.app).get('/api/v1/gifs/search?q=fail-now');
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ error: 'GIF provider unavailable' });
    } finally {
      giphy.answer(giphyAnswer);
    }
    expect((await request(t.app).get('/api/v1/gifs/search').query({ q: 'x'.repeat(3000) })).status).toBe(400);
  });

  test('when a guest makes 60 GIF reads in a minute then the 61st answers 429 with the GIF message and RateLimit headers', async () => {
    const t = createTestApp();
    for (let i = 0; i < 60; i++) expect((await request(t.app).get(i % 2 ? '/api/v1/gifs/trending' : '/api/v1/gifs/search?q=a')).status).toBe(200);
    const res = await request(t.app).get('/api/v1/gifs/trending');
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'Too many GIF requests. Please wait a minute and try again.', retryAfter: 60 });
    expect(res.headers['ratelimit-policy']).toBe('60;w=60');
  });

  test('when a user spends the GIF bucket on reads then commenting with a gif_id is refused too (one bucket), a plain comment is not', async () => {
    const t = createTestApp();
    const user = await createUser(t.ctx.db);
    const f = await createFundraiser(t.ctx.db, (await createUser(t.ctx.db)).id);
    const h = await authHeaders(t, user);
    for (let i = 0; i < 60; i++) expect((await request(t.app).get('/api/v1/gifs/trending').set(h)).status).toBe(200);
    const withGif = await request(t.app).post(`/api/v1/fundraisers/${f.id}/comments`).set(h).send({ body: 'yay', gif_id: 'g1' });
    expect(withGif.status).toBe(429);
    expect(withGif.body.error).toBe('Too many GIF requests. Please wait a minute and try again.');
    expect((await request(t.app).post(`/api/v1/fundraisers/${f.id}/comments`).set(h).send({ body: 'yay' })).status).toBe(201);
    // The user's bucket is not the guest's: the same IP as a guest still reads.
    expect((await request(t.app).get('/api/v1/gifs/trending')).status).toBe(200);
  });
});
