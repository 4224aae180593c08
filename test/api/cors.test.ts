import request from 'supertest';
import { ConfigError } from '../../src/config';
import { closeDb, createTestApp, testConfig, type TestApp } from '../helpers/app';

const EXPOSED = ['Retry-After', 'RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id', 'ETag', 'Idempotent-Replayed'];
const PARTNER = 'http://partner.test';

let t: TestApp;
beforeAll(() => {
  t = createTestApp({ env: { CORS_ORIGINS: `${PARTNER}, https://other.test` } });
});
afterAll(closeDb);

const exposedOf = (h: Record<string, string>) => (h['access-control-expose-headers'] ?? '').split(/,\s*/).filter(Boolean);

describe('CORS', () => {
  test('when SITE_URL calls anything, then the answer allows it with credentials and exposes the rate-limit, request-id, ETag and replay headers', async () => {
    const answers = [
      await request(t.app).get('/api/v1/fundraisers').set('Origin', 'http://site.test'),
      await request(t.app).get('/api/v1/me/capabilities').set('Origin', 'http://site.test'),
      await request(t.app).post('/api/v1/donations').set('Origin', 'http://site.test').send({}),
      await request(t.app).get('/api/v1/nope').set('Origin', 'http://site.test'),
    ];
    for (const res of answers) {
      expect(res.headers['access-control-allow-origin']).toBe('http://site.test');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(exposedOf(res.headers)).toEqual(EXPOSED);
    }
  });

  test('when a CORS_ORIGINS origin reads a public read, then it is allowed without credentials and sees the exposed headers; anything else names only SITE_URL', async () => {
    for (const path of ['/api/v1/fundraisers', '/api/v1/donations/recent', '/api/v1/donations/00000000-0000-4000-8000-000000000000', '/healthz']) {
      const res = await request(t.app).get(path).set('Origin', PARTNER);
      expect({ path, allow: res.headers['access-control-allow-origin'] }).toEqual({ path, allow: PARTNER });
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
      expect(exposedOf(res.headers)).toEqual(EXPOSED);
    }
    const other = await request(t.app).get('/api/v1/fundraisers').set('Origin', 'https://other.test');
    expect(other.headers['access-control-allow-origin']).toBe('https://other.test');

    // A signed-in read or any write answers with SITE_URL only: the browser refuses it to the partner.
    const answers = [
      await request(t.app).get('/api/v1/me/capabilities').set('Origin', PARTNER),
      await request(t.app).get('/api/v1/me/donations').set('Origin', PARTNER),
      await request(t.app).post('/api/v1/donations').set('Origin', PARTNER).send({}),
      await request(t.app).get('/api/v1/nope').set('Origin', PARTNER),
    ];
    for (const res of answers) expect(res.headers['access-control-allow-origin']).toBe('http://site.test');
  });

  test('when a CORS_ORIGINS origin sends a preflight, then a public GET is allowed (no credentials, no Authorization header) and nothing else; unlisted origins get nothing', async () => {
    const ok = await request(t.app)
      .options('/api/v1/fundraisers')
      .set('Origin', PARTNER)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'x-client-version, authorization');
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(PARTNER);
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
    expect(ok.headers['access-control-allow-methods']).toBe('GET, HEAD');
    expect(ok.headers['access-control-allow-headers']).toBe('x-client-version');

    const write = await request(t.app).options('/api/v1/donations').set('Origin', PARTNER).set('Access-Control-Request-Method', 'POST');
    expect(write.headers['access-control-allow-origin']).not.toBe(PARTNER);
    const mine = await request(t.app).options('/api/v1/me/capabilities').set('Origin', PARTNER).set('Access-Control-Request-Method', 'GET');
    expect(mine.headers['access-control-allow-origin']).not.toBe(PARTNER);

    // SITE_URL's preflight allows any method and the Idempotency-Key header, with credentials.
    const site = await request(t.app)
      .options('/api/v1/donations')
      .set('Origin', 'http://site.test')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type, idempotency-key');
    expect(site.status).toBe(204);
    expect(site.headers['access-control-allow-origin']).toBe('http://site.test');
    expect(site.headers['access-control-allow-credentials']).toBe('true');
    expect(site.headers['access-control-allow-headers']).toBe('content-type, idempotency-key');

    // An origin not listed gets no allowance.
    const res = await request(t.app).get('/api/v1/fundraisers').set('Origin', 'http://evil.test');
    expect(res.headers['access-control-allow-origin']).toBe('http://site.test');
    const pre = await request(t.app).options('/api/v1/fundraisers').set('Origin', 'http://evil.test').set('Access-Control-Request-Method', 'GET');
    expect(pre.headers['access-control-allow-origin']).not.toBe('http://evil.test');
  });

  test('when CORS_ORIGINS holds something other than origins, then the configuration is refused naming it', () => {
    for (const bad of ['partner.test', 'http://partner.test/path', 'http://a.test,ftp//x']) {
      expect(() => testConfig({ CORS_ORIGINS: bad })).toThrow(ConfigError);
      expect(() => testConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
    expect(testConfig({ CORS_ORIGINS: 'http://a.test, https://b.test:8443/' }).CORS_ORIGINS).toEqual(['http://a.test', 'https://b.test:8443']);
  });
});
