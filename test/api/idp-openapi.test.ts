import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

test('when the OpenAPI document is built then every identity route is described', async () => {
  const t = createTestApp();
  const res = await request(t.app).get('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  const paths = Object.keys(res.body.paths);
  for (const p of ['/idp/signup', '/idp/confirm', '/idp/signin', '/idp/challenge', '/idp/refresh', '/idp/logout', '/idp/me', '/idp/forgot-password', '/idp/reset-password', '/idp/change-password']) {
    expect(paths.some((k) => k.endsWith(p))).toBe(true);
  }
});
