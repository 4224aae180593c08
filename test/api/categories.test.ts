import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

const SLUGS = ['medical', 'emergency', 'education', 'animals', 'community', 'creative', 'environment', 'faith', 'family', 'sports', 'memorial', 'nonprofit'];

describe('GET /categories', () => {
  const { app } = createTestApp();
  const get = (query: Record<string, string> = {}) => request(app).get('/api/v1/categories').query(query);
  const nameOf = (res: request.Response, slug: string) =>
    (res.body.data as Array<{ slug: string; name: string }>).find((c) => c.slug === slug)?.name;

  test('when no language is asked for then every seeded category is listed in order with English names', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { slug: string }) => c.slug)).toEqual(SLUGS);
    expect(res.body.data[0]).toEqual({ id: expect.any(Number), slug: 'medical', name: 'Medical' });
  });

  test.each([
    ['en', 'Animals', 'Education'],
    ['ru', 'Животные', 'Образование'],
    ['uk', 'Тварини', 'Освіта'],
    ['es', 'Animales', 'Educación'],
  ])('when lang=%s then names are in that locale', async (lang, animals, education) => {
    const res = await get({ lang });
    expect(res.status).toBe(200);
    expect(nameOf(res, 'animals')).toBe(animals);
    expect(nameOf(res, 'education')).toBe(education);
    expect(res.body.data).toHaveLength(12);
    for (const c of res.body.data) expect(c.name).toEqual(expect.any(String));
  });

  test('when the lang cookie or Accept-Language names a locale then it is used, and lang wins over both', async () => {
    expect(nameOf(await get().set('Cookie', 'lang=uk'), 'family')).toBe('Родина');
    expect(nameOf(await get().set('Accept-Language', 'es-ES,es;q=0.9'), 'family')).toBe('Familia');
    expect(nameOf(await get({ lang: 'ru' }).set('Cookie', 'lang=uk'), 'family')).toBe('Семья');
  });

  test('when lang is unknown then English is used', async () => {
    const res = await get({ lang: 'fr' });
    expect(res.status).toBe(200);
    expect(nameOf(res, 'family')).toBe('Family');
  });

  test('when more than 300 requests a minute come from one IP then 429 from the public limiter', async () => {
    const own = createTestApp().app;
    let last: request.Response | undefined;
    for (let i = 0; i < 301; i++) last = await request(own).get('/api/v1/categories');
    expect(last!.status).toBe(429);
    expect(last!.body).toMatchObject({ error: 'Too many requests, please try again later.', retryAfter: 60 });
    expect(last!.headers['retry-after']).toBeDefined();
  });
});
