import request from 'supertest';
import { z } from 'zod';
import { defineRoutes, idParams, route, type RouteModule } from '../../src/http/define-routes';
import { buildOpenApi } from '../../src/http/openapi/openapi';
import { modules } from '../../src/modules';
import { buildContractApp, closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

// Query schemas the way route authors write them: preprocess, transform, coerce, defaults.
const probe = defineRoutes(
  '/openapi-probe',
  [
    route({
      method: 'get',
      path: '/things/:id/parts',
      summary: 'probe with a transforming query',
      auth: 'optional',
      limiters: ['public'],
      params: idParams,
      query: z.object({
        limit: z.preprocess((v) => (v === undefined ? undefined : Number(v)), z.number().int().min(1).max(100).default(20)),
        projects: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
        tags: z.string().transform((s) => s.split(',')).optional(),
        since: z.coerce.date().optional(),
      }),
      response: z.object({ data: z.array(z.object({ id: z.string() })) }),
      handler: () => ({ data: [] }),
    }),
    route({
      method: 'post',
      path: '/things',
      summary: 'probe with a refined body',
      auth: 'required',
      status: 201,
      body: z.object({ a: z.number() }).refine((b) => b.a > 0, 'a must be positive'),
      handler: () => ({ ok: true }),
    }),
  ],
  { tag: 'test' },
);

const openApiPath = (mod: RouteModule, path: string) =>
  (((mod.root ? '' : '/api/v1') + mod.prefix + (path === '/' ? '' : path)).replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/+$/, '') || '/');

describe('OpenAPI and docs', () => {
  const all = [...modules, probe];
  const base = createTestApp();
  const app = buildContractApp(base.ctx, all);

  test('when the descriptions are read, then they state what the service does today (attestation, feed rule, listings, notifications, request_id)', async () => {
    const doc = (await request(app).get('/api/v1/openapi.json')).body;
    const desc = (path: string, method: string) => String(doc.paths[path][method].description);
    for (const [path, method] of [['/api/v1/payments/create-intent', 'post'], ['/api/v1/donations', 'post'], ['/api/v1/platform/tips', 'post']]) {
      expect(desc(path, method)).toContain('X-App-Attestation');
      expect(desc(path, method)).not.toMatch(/no native-app attestation|not supported/i);
    }
    expect(desc('/api/v1/me/campaign-updates', 'get')).toContain('public and active or ended');
    expect(desc('/api/v1/me/campaign-updates/read-all', 'put')).toContain('millisecond');
    expect(desc('/api/v1/organizations/{idOrSlug}/updates', 'get')).toContain('unlisted');
    expect(desc('/api/v1/fundraisers/{id}/comments', 'post')).toContain('comment_received');
    expect(desc('/api/v1/org-admin/{slug}/documents/{documentId}', 'get')).toContain('private, no-store');
    expect(doc.components.schemas.Error.properties.request_id).toBeDefined();
  });

  test('when GET /api/v1/openapi.json then an OpenAPI 3.1 document lists every mounted route under its {param} path', async () => {
    const res = await request(app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: '3.1.2' }));
    // Paths carry /api/v1 themselves and the server is relative, so any host's "Try it out" works.
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const numbersUrl = new URL('/api/v1/platform/numbers', new URL(doc.servers[0].url, 'http://any-host.test'));
    expect((await request(app).get(numbersUrl.pathname)).status).toBe(200);
    expect(doc.components.schemas.Error.properties).toEqual(
      expect.objectContaining({ error: expect.any(Object), message: expect.any(Object), details: expect.any(Object), feature_key: expect.any(Object) }),
    );
    expect(doc.components.schemas.RateLimitError.required).toEqual(['error', 'retryAfter']);
    expect(doc.paths['/api/v1/platform/numbers'].get.responses['429'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TooManyRequests' });
    // A limiter's 429 is the one rate-limit shape; the CAPTCHA demand and a used-up quota are the others.
    expect(doc.components.schemas.TooManyRequests.anyOf).toEqual([
      { $ref: '#/components/schemas/RateLimitError' },
      { $ref: '#/components/schemas/CaptchaRequired' },
      { $ref: '#/components/schemas/LimitReached' },
    ]);
    expect(doc.paths['/api/v1/platform/numbers'].get.responses['500'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(doc.components.schemas.FundraiserCard).toBeDefined();
    let count = 0;
    for (const mod of all) {
      for (const r of mod.routes) {
        const p = openApiPath(mod, r.path);
        expect(p).not.toContain(':');
        expect({ path: p, method: r.method, op: Boolean(doc.paths[p]?.[r.method]) }).toEqual({ path: p, method: r.method, op: true });
        count++;
      }
    }
    expect(count).toBeGreaterThan(5);
    expect(doc.paths['/healthz'].get).toBeDefined();
    expect(doc.paths['/api/v1/platform/numbers'].get.responses['429']).toBeDefined();
  });

  test('when a route has preprocess/transform query schemas then it is documented with its parameters', async () => {
    const doc = (await request(app).get('/api/v1/openapi.json')).body;
    const op = doc.paths['/api/v1/openapi-probe/things/{id}/parts'].get;
    const names = op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort();
    expect(names).toEqual(['path:id', 'query:limit', 'query:projects', 'query:since', 'query:tags']);
    expect(op.responses['200'].content['application/json'].schema).toBeDefined();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '429', '500']));
    const post = doc.paths['/api/v1/openapi-probe/things'].post;
    expect(post.requestBody.content['application/json'].schema.properties.a).toBeDefined();
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['201', '400', '401']));
  });

  test('when the document is built then every operation has a unique operationId derived from method and path', async () => {
    const doc = (await request(app).get('/api/v1/openapi.json')).body;
    const ids: string[] = [];
    for (const item of Object.values(doc.paths) as Array<Record<string, { operationId?: string }>>) {
      for (const op of Object.values(item)) ids.push(op.operationId!);
    }
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/v1/fundraisers/{id}/comments'].post.operationId).toBe('postFundraisersByIdComments');
    expect(doc.paths['/api/v1/fundraisers/{id}'].get.operationId).toBe('getFundraisersById');
    expect(doc.paths['/healthz'].get.operationId).toBe('getHealthz');
  });

  test('when two routes would share an operationId then building the document fails loudly', () => {
    const clash = defineRoutes('/clash', [
      route({ method: 'get', path: '/a', auth: 'none', operationId: 'getThing', handler: () => ({}) }),
      route({ method: 'get', path: '/b', auth: 'none', operationId: 'getThing', handler: () => ({}) }),
    ]);
    expect(() => buildOpenApi([...modules, clash])).toThrow(/operationId getThing/);
  });

  test('when a campaign\'s comments are described then one path with one parameter name carries both operations', async () => {
    const doc = (await request(app).get('/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths).filter((p) => /^\/api\/v1\/fundraisers\/\{[^}]+\}\/comments$/.test(p))).toEqual([
      '/api/v1/fundraisers/{id}/comments',
    ]);
    expect(Object.keys(doc.paths['/api/v1/fundraisers/{id}/comments']).sort()).toEqual(['get', 'post']);
  });

  test('when paging parameters are described then limit and offset are bounded integers, not strings', async () => {
    const doc = (await request(app).get('/api/v1/openapi.json')).body;
    const param = (p: string, name: string) =>
      doc.paths[p].get.parameters.find((x: { name: string }) => x.name === name).schema;
    for (const p of ['/api/v1/fundraisers', '/api/v1/fundraisers/{id}/comments', '/api/v1/admin/review-queue']) {
      expect(param(p, 'limit')).toEqual(expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 20 }));
      expect(param(p, 'offset')).toEqual(expect.objectContaining({ type: 'integer', minimum: 0, maximum: 10_000, default: 0 }));
    }
  });

  test('when URL fields are described then each pattern is a flag-free ECMA regex that accepts real URLs', async () => {
    const doc = (await request(app).get('/api/v1/openapi.json')).body;
    const patterns: string[] = [];
    JSON.stringify(doc, (k, v) => {
      if (k === 'pattern' && typeof v === 'string') patterns.push(v);
      return v;
    });
    expect(patterns.length).toBeGreaterThan(0);
    for (const p of patterns) {
      expect(p).not.toMatch(/\/[a-z]+$/);
      expect(() => new RegExp(p, 'u')).not.toThrow();
    }
    const body = doc.paths['/api/v1/fundraisers'].post.requestBody.content['application/json'].schema;
    const video = JSON.stringify(body.properties.video_url);
    const videoPattern = new RegExp(JSON.parse(video.match(/"pattern":("(?:[^"\\]|\\.)*")/)![1]!), 'u');
    expect(videoPattern.test('https://videos.example.com/v/1')).toBe(true);
    expect(videoPattern.test('HTTPS://Videos.example.com/v/1')).toBe(true);
    expect(videoPattern.test('javascript:alert(1)')).toBe(false);
  });

  test('when an operation takes a body then 415 is documented; a body-less operation does not list it', async () => {
    const doc = (await request(app).get('/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/idp/signin'].post.responses)).toContain('415');
    expect(Object.keys(doc.paths['/local-idp'].post.responses)).toContain('415');
    expect(Object.keys(doc.paths['/api/v1/idp/logout'].post.responses)).not.toContain('415');
  });

  test('when a route schema cannot be rendered then the document still answers and lists the route', async () => {
    const odd = defineRoutes('/odd', [
      route({ method: 'get', path: '/', summary: 'custom schema', auth: 'none', query: z.object({ x: z.custom<string>(() => true) }), handler: () => ({}) }),
    ]);
    const app2 = buildContractApp(base.ctx, [...modules, odd]);
    const res = await request(app2).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.paths['/api/v1/odd'].get.summary).toBe('custom schema');
    expect(res.body.paths['/api/v1/platform/numbers'].get.responses['200'].content).toBeDefined();
  });

  test('when GET /api/v1/docs then an HTML page loads Swagger UI from /api/v1/docs/assets, and the assets answer', async () => {
    const page = await request(app).get('/api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const srcs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs).toEqual(expect.arrayContaining(['/api/v1/docs/assets/swagger-ui-bundle.js', '/api/v1/docs/assets/swagger-ui.css']));
    for (const src of srcs) {
      const asset = await request(app).get(src);
      expect({ src, status: asset.status }).toEqual({ src, status: 200 });
    }
    const init = await request(app).get('/api/v1/docs/init.js');
    expect(init.text).toContain('/api/v1/openapi.json');
    // Usable on a phone: the page lays out for the device's width and operations start folded.
    expect(page.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page.text).toMatch(/@media \(max-width: 640px\)/);
    expect(init.text).toContain("docExpansion: 'none'");
    // Served over http here: the page must not ask browsers to upgrade its asset requests.
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(page.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
    const js = await request(app).get('/api/v1/docs/assets/swagger-ui-bundle.js');
    expect(js.headers['content-type']).toMatch(/javascript/);
  });
});
