import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

describe('GET /locations/zip/:zip', () => {
  const { app } = createTestApp();

  test('when the ZIP is a known 5-digit US ZIP then city, state, label and point are returned', async () => {
    const res = await request(app).get('/api/v1/locations/zip/78701');
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('300');
    expect(res.body).toEqual({
      data: { zip: '78701', city: 'Austin', state: 'TX', label: 'Austin, TX', lat: 30.2713, lng: -97.7426 },
    });
    const ny = await request(app).get('/api/v1/locations/zip/10001');
    expect(ny.body.data).toMatchObject({ city: 'New York', state: 'NY', label: 'New York, NY' });
  });

  test('when the ZIP is not 5 digits then 400', async () => {
    for (const zip of ['7870', '787011', 'abcde', '78701-1234', 'H0H0H0', '7870a']) {
      const res = await request(app).get(`/api/v1/locations/zip/${zip}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'Invalid ZIP', message: expect.any(String) });
    }
  });

  test('when the ZIP is well-formed but unknown then 404', async () => {
    const res = await request(app).get('/api/v1/locations/zip/00000');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Not found');
  });
});
