import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Operation { responses: Record<string, { description: string }>; description?: string }
type Doc = { paths: Record<string, Partial<Record<Method, Operation>>> };

/** Every operation of the document, as `method path`. */
function operations(doc: Doc): Array<{ method: Method; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    (Object.entries(item) as Array<[Method, Operation]>).map(([method, op]) => ({ method, path, op })),
  );
}

/**
 * The answers the document promises for operations that take no input and have no limiter of
 * their own (health checks, the docs page, JWKS, logout, the trust status): each is really given.
 */
describe('documented client errors are really answered', () => {
  const t = createTestApp();
  let doc: Doc;

  beforeAll(async () => {
    doc = (await request(t.app).get('/api/v1/openapi.json')).body as Doc;
  });

  test("when the Cognito endpoint documents its faults then they are Cognito's shape, as a real fault answers", async () => {
    const op = (doc.paths['/local-idp'] ?? doc.paths['/local-idp/'])!.post! as Operation & { responses: Record<string, { content?: Record<string, unknown> }> };
    // Cognito's shape for the protocol's requests; one without X-Amz-Target gets the API's Error body.
    expect(Object.keys(op.responses['400']!.content!)).toEqual(['application/x-amz-json-1.1', 'application/json']);
    const res = await request(t.app)
      .post('/local-idp/')
      .set('X-Amz-Target', 'AWSCognitoIdentityProviderService.InitiateAuth')
      .set('Content-Type', 'application/x-amz-json-1.1')
      .send(JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: 'wrong', AuthParameters: {} }));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/x-amz-json-1.1/);
    expect(Object.keys(JSON.parse(res.text)).sort()).toEqual(['__type', 'message']);
    const plain = await request(t.app).post('/local-idp/').set('Content-Type', 'application/json').send('{"broken": ');
    expect(plain.status).toBe(400);
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(plain.body).toEqual(expect.objectContaining({ error: 'Invalid JSON' }));
  });

  test('when an operation that takes no input documents 400 then a body that is not valid JSON is refused with it', async () => {
    const noInput = operations(doc).filter(({ op }) => /takes no parameters or body/.test(op.responses['400']?.description ?? ''));
    const paths = noInput.map(({ method, path }) => `${method} ${path}`);
    expect(paths).toEqual(
      expect.arrayContaining(['get /healthz', 'get /readyz', 'get /api/v1/docs', 'get /api/v1/docs/init.js', 'get /api/v1/trust/status', 'post /api/v1/idp/logout', 'get /local-idp/.well-known/jwks.json', 'get /local-idp/.well-known/openid-configuration']),
    );
    for (const { method, path } of noInput) {
      const res = await request(t.app)[method](path).set('Content-Type', 'application/json').send('{"broken": ');
      expect({ op: `${method} ${path}`, status: res.status, error: res.body.error }).toEqual({ op: `${method} ${path}`, status: 400, error: 'Invalid JSON' });
    }
  });

  test('when every operation is listed then each documents a 4xx and a default for the errors no route lists', () => {
    for (const { method, path, op } of operations(doc)) {
      const codes = Object.keys(op.responses);
      expect({ op: `${method} ${path}`, has4xx: codes.some((c) => /^4\d\d$/.test(c)), hasDefault: codes.includes('default') }).toEqual({
        op: `${method} ${path}`,
        has4xx: true,
        hasDefault: true,
      });
    }
  });

  test('when a body is over the size limit on a health check then the documented default (413) answers', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) });
    const res = await request(t.app).get('/healthz').set('Content-Type', 'application/json').send(big);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: 'Payload too large' });
    expect(doc.paths['/healthz']!.get!.responses.default!.description).toMatch(/413/);
  });

  test('when a caller passes the global limit (100 a minute per IP) then trust status and logout answer the documented 429', async () => {
    const fresh = createTestApp();
    for (const path of ['/api/v1/trust/status', '/api/v1/idp/logout']) {
      const op = doc.paths[path]![path.endsWith('logout') ? 'post' : 'get']!;
      expect(Object.keys(op.responses)).toContain('429');
      expect(op.description).toContain('Rate limiters: global.');
    }
    // One bucket for every request under /api/v1 not exempted: 50 of each spend it.
    for (let i = 0; i < 50; i += 1) {
      expect((await request(fresh.app).get('/api/v1/trust/status')).status).toBe(200);
      expect((await request(fresh.app).post('/api/v1/idp/logout')).status).toBe(200);
    }
    const status = await request(fresh.app).get('/api/v1/trust/status');
    const logout = await request(fresh.app).post('/api/v1/idp/logout');
    for (const res of [status, logout]) {
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ error: 'Too many requests, please try again later.', retryAfter: 60 });
      expect(res.headers['retry-after']).toBeDefined();
    }
  }, 240_000);

  test('when the service uses Cognito (IDP=cognito) then the built-in JWKS answers its documented 404', async () => {
    expect(Object.keys(doc.paths['/local-idp/.well-known/jwks.json']!.get!.responses)).toContain('404');
    const cognito = createTestApp({
      env: { IDP: 'cognito', COGNITO_REGION: 'eu-west-1', COGNITO_USER_POOL_ID: 'eu-west-1_abc', COGNITO_CLIENT_ID: 'client' },
    });
    const res = await request(cognito.app).get('/local-idp/.well-known/jwks.json');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'Not found', message: 'The built-in identity provider is off' });
  });

  test('when an operation answers only with a redirect then the document says where it goes (Location) and nothing claims a 2xx', () => {
    for (const [path, method] of [
      ['/api/v1/idp/verify-email', 'get'],
      ['/api/v1/idp/oauth/{provider}', 'get'],
      ['/api/v1/idp/oauth/callback', 'get'],
      ['/sandbox/checkout/{id}/complete', 'post'],
      ['/sandbox/checkout/{id}/cancel', 'post'],
      ['/sandbox/connect/{id}/complete', 'post'],
    ] as const) {
      const responses = doc.paths[path]![method]!.responses as Record<string, { headers?: Record<string, unknown> }>;
      const codes = Object.keys(responses);
      expect({ path, success: codes.filter((c) => /^[23]\d\d$/.test(c)) }).toEqual({ path, success: [expect.stringMatching(/^30[23]$/)] });
      expect(responses[codes.find((c) => c.startsWith('3'))!]!.headers!.Location).toBeDefined();
    }
  });
});
