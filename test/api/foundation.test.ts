import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

describe('foundation pipeline', () => {
  const { app } = createTestApp();

  test('when GET /healthz then 200 and no rate-limit headers', async () => {
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  test('when GET /readyz with a reachable database then 200', async () => {
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  test('when an unknown /api/v1 route is requested then 404 JSON in the error shape', async () => {
    const res = await request(app).get('/api/v1/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found', message: expect.any(String) });
  });

  test('when the body is malformed JSON then 400', async () => {
    const res = await request(app).post('/api/v1/nope').set('Content-Type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid JSON');
  });

  test('when the body is over the limit then 413', async () => {
    const big = JSON.stringify({ a: 'x'.repeat(1024 * 1024 + 10) });
    const res = await request(app).post('/api/v1/nope').set('Content-Type', 'application/json').send(big);
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('Payload too large');
  });

  test('when a caller passes X-Request-Id then it is echoed', async () => {
    const res = await request(app).get('/healthz').set('X-Request-Id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
  });
});
