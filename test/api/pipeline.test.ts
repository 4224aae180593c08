import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import cors from 'cors';
import express from 'express';
import helmet from 'helmet';
import pino from 'pino';
import request from 'supertest';
import { sendCacheable } from '../../src/http/caching';
import { actorOf, type CredentialResolver } from '../../src/http/credentials';
import { defineRoutes, route } from '../../src/http/define-routes';
import { modules } from '../../src/modules';
import { buildContractApp, closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

/** Routes that show what the pipeline handed them, and one matched only through a parameter-first path. */
const probe = defineRoutes(
  '/pipe-probe',
  [
    route({ method: 'get', path: '/body', auth: 'none', handler: ({ req }) => ({ hasBody: 'body' in req, body: req.body ?? null }) }),
    route({ method: 'delete', path: '/body', auth: 'none', handler: ({ req }) => ({ body: req.body ?? null }) }),
    route({ method: 'get', path: '/cached', auth: 'none', handler: ({ req, res }) => sendCacheable(req, res, { ok: 1 }, { scope: 'public', maxAge: 30, vary: ['Cookie', 'Accept-Language'] }) }),
    route({
      method: 'get',
      path: '/boom',
      auth: 'none',
      handler: ({ req }) => {
        req.log.warn({ probe: true }, 'about to fail');
        throw new Error('probe failure');
      },
    }),
  ],
  { tag: 'test' },
);
const paramFirst = defineRoutes('', [route({ method: 'get', path: '/:anything/deep', auth: 'none', handler: ({ req }) => ({ anything: req.params.anything }) })], { tag: 'test' });

function appWith(env: Record<string, string> = {}) {
  const base = createTestApp({ env });
  const chunks: string[] = [];
  base.ctx.log = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (chunks.push(String(c)), cb()) }));
  const app = buildContractApp(base.ctx, [...modules, probe, paramFirst]);
  return { app, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) };
}

const HELMET_HEADERS = [
  'content-security-policy', 'cross-origin-opener-policy', 'cross-origin-resource-policy', 'origin-agent-cluster',
  'referrer-policy', 'strict-transport-security', 'x-content-type-options', 'x-dns-prefetch-control',
  'x-download-options', 'x-frame-options', 'x-permitted-cross-domain-policies', 'x-xss-protection', 'x-powered-by',
];
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers', 'vary'];
const pick = (h: Record<string, unknown>, names: string[]) => Object.fromEntries(names.map((n) => [n, h[n]]));

/** What helmet and cors themselves answer with the service's options (the reference the pipeline must equal). */
function reference(https: boolean) {
  const ref = express();
  ref.disable('x-powered-by');
  ref.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: https ? [] : null } }, crossOriginOpenerPolicy: https }));
  ref.use(cors({ origin: 'http://site.test', credentials: true }));
  ref.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
  return ref;
}

describe('static security and CORS headers', () => {
  test.each([false, true])('when any answer is sent (https PUBLIC_URL: %s), then its security headers are exactly helmet\'s', async (https) => {
    const { app } = appWith(https ? { PUBLIC_URL: 'https://api.test' } : {});
    const ours = await request(app).get('/healthz');
    const theirs = await request(reference(https)).get('/healthz');
    expect(pick(ours.headers, HELMET_HEADERS)).toEqual(pick(theirs.headers, HELMET_HEADERS));
    expect(ours.headers['content-security-policy']).toBeDefined();
    // Browsers ignore COOP on a plain-http origin and log an error for it on every page.
    expect(ours.headers['cross-origin-opener-policy']).toBe(https ? 'same-origin' : undefined);
    const notFound = await request(app).get('/api/v1/nope');
    expect(pick(notFound.headers, HELMET_HEADERS)).toEqual(pick(theirs.headers, HELMET_HEADERS));
  });

  test('when a request comes with or without Origin, or as a preflight, then the CORS answer is the cors package\'s', async () => {
    const { app } = appWith();
    const ref = reference(false);
    for (const origin of [undefined, 'http://site.test', 'http://evil.test']) {
      const ours = request(app).get('/healthz');
      const theirs = request(ref).get('/healthz');
      if (origin) [ours, theirs].forEach((r) => r.set('Origin', origin));
      expect(pick((await ours).headers, CORS_HEADERS)).toEqual(pick((await theirs).headers, CORS_HEADERS));
    }
    const pre = (a: express.Express) =>
      request(a).options('/healthz').set('Origin', 'http://site.test').set('Access-Control-Request-Method', 'PATCH').set('Access-Control-Request-Headers', 'content-type');
    const [ours, theirs] = [await pre(app), await pre(ref)];
    expect(ours.status).toBe(theirs.status);
    expect(pick(ours.headers, CORS_HEADERS)).toEqual(pick(theirs.headers, CORS_HEADERS));
  });

  test('when a public read is cached, then Vary keeps Origin first and lists each field once', async () => {
    const { app } = appWith();
    const res = await request(app).get('/api/v1/pipe-probe/cached').expect(200);
    expect(res.headers.vary).toBe('Origin, Authorization, Cookie, Accept-Language');
    const head = await request(app).head('/api/v1/pipe-probe/cached').expect(200);
    expect(head.headers['content-length']).toBe(res.headers['content-length']);
    expect(head.headers.etag).toBe(res.headers.etag);
    expect(head.text ?? '').toBe('');
  });
});

describe('body parsing', () => {
  test('when a GET carries no body, then the handler sees req.body undefined; a DELETE with JSON still gets it parsed', async () => {
    const { app } = appWith();
    const get = await request(app).get('/api/v1/pipe-probe/body').expect(200);
    expect(get.body).toEqual({ hasBody: true, body: null });
    const del = await request(app).delete('/api/v1/pipe-probe/body').send({ a: 1 }).expect(200);
    expect(del.body).toEqual({ body: { a: 1 } });
    const form = await request(app).delete('/api/v1/pipe-probe/body').type('form').send('a=1').expect(200);
    expect(form.body).toEqual({ body: { a: '1' } });
    const bad = await request(app).delete('/api/v1/pipe-probe/body').set('Content-Type', 'application/json').send('{"a":');
    expect(bad.status).toBe(400);
  });
});

describe('route dispatch by first path segment', () => {
  test('when the first segment is spelled in capitals, then the route still matches, as Express matches paths', async () => {
    const { app } = appWith();
    expect((await request(app).get('/api/v1/PIPE-PROBE/body')).status).toBe(200);
    expect((await request(app).get('/HEALTHZ')).status).toBe(200);
  });

  test('when no literal route matches, then a parameter-first route is tried last, and unknown paths answer 404 in the error shape', async () => {
    const { app } = appWith();
    expect((await request(app).get('/api/v1/pipe-probe/deep').expect(200)).body).toEqual({ anything: 'pipe-probe' });
    expect((await request(app).get('/api/v1/whatever/deep').expect(200)).body).toEqual({ anything: 'whatever' });
    const none = await request(app).get('/api/v1/whatever/else').expect(404);
    expect(none.body).toMatchObject({ error: 'Not found', message: 'No route for GET /api/v1/whatever/else' });
  });
});

describe('request log', () => {
  test('when a handler fails with a 500, then req.log lines carry the request and the request line is at error level', async () => {
    const { app, lines } = appWith();
    await request(app).get('/api/v1/pipe-probe/boom').set('X-Request-Id', 'req-pipe-1').expect(500);
    const mine = lines().filter((l) => l.req?.id === 'req-pipe-1');
    expect(mine.find((l) => l.msg === 'about to fail')).toMatchObject({ level: 40, probe: true, req: { id: 'req-pipe-1', method: 'GET', url: '/api/v1/pipe-probe/boom' } });
    expect(mine.find((l) => l.msg === 'request errored')).toMatchObject({ level: 50, res: { statusCode: 500 }, err: { message: 'failed with status code 500' } });
    expect(typeof mine.find((l) => l.msg === 'request errored')?.responseTime).toBe('number');
  });

  test('when the log level is silent, then answers still carry a request id', async () => {
    const base = createTestApp();
    base.ctx.log = pino({ level: 'silent' });
    const res = await request(buildContractApp(base.ctx)).get('/healthz').set('X-Request-Id', 'bad id!');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('app.listen', () => {
  test('when the app listens itself, then it serves with the same pipeline, and a listen error reaches the callback', async () => {
    const { app } = appWith();
    const server = await new Promise<import('node:http').Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const posted = await fetch(`http://127.0.0.1:${port}/api/v1/pipe-probe/body`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: '{"a":2}' });
      expect(await posted.json()).toEqual({ body: { a: 2 } });
      const err = await new Promise<unknown>((resolve) => app.listen(port, '127.0.0.1', resolve));
      expect(err).toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('guest credentials', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as express.Request;
  test('when a request has neither Cookie nor Authorization, then it is a guest without asking the resolver', async () => {
    const resolver: CredentialResolver = { resolve: jest.fn(async () => null) };
    await expect(actorOf(req({}), resolver)).resolves.toBeNull();
    expect(resolver.resolve).not.toHaveBeenCalled();
    await actorOf(req({ authorization: 'Bearer x' }), resolver);
    await actorOf(req({ cookie: 'a=b' }), resolver);
    expect(resolver.resolve).toHaveBeenCalledTimes(2);
  });
});
