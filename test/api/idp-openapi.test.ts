import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

type Op = { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

describe('OpenAPI description of the identity routes', () => {
  const t = createTestApp();
  let paths: Record<string, Record<string, Op>>;
  beforeAll(async () => {
    const res = await request(t.app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    paths = res.body.paths;
  });
  const op = (p: string, m: string) => paths[p]?.[m];
  const bodyFields = (p: string, m: string, media = 'application/json') =>
    Object.keys(op(p, m)?.requestBody?.content[media]?.schema.properties ?? {}).sort();

  test('when the OpenAPI document is built then every identity route is described', () => {
    for (const p of ['signup', 'confirm', 'signin', 'challenge', 'refresh', 'logout', 'forgot-password', 'reset-password', 'change-password']) {
      expect(op(`/api/v1/idp/${p}`, 'post')).toBeDefined();
    }
    expect(op('/api/v1/idp/me', 'get')).toBeDefined();
  });

  test('when a route takes a body then its fields are documented', () => {
    expect(bodyFields('/api/v1/idp/signup', 'post')).toEqual(['ambassadorInviteToken', 'captchaToken', 'email', 'name', 'password']);
    expect(bodyFields('/api/v1/idp/signin', 'post')).toEqual(['captchaToken', 'email', 'password']);
    expect(bodyFields('/api/v1/idp/confirm', 'post')).toEqual(['code', 'email']);
    expect(bodyFields('/api/v1/idp/forgot-password', 'post')).toEqual(['email']);
    expect(bodyFields('/api/v1/idp/reset-password', 'post')).toEqual(['code', 'email', 'newPassword']);
    expect(bodyFields('/api/v1/idp/change-password', 'post')).toEqual(['currentPassword', 'newPassword']);
    expect(bodyFields('/api/v1/idp/challenge', 'post')).toEqual(['challengeName', 'email', 'newPassword', 'session']);
  });

  test('when sign-in and refresh are described then their answers and failure statuses are listed', () => {
    const signin = op('/api/v1/idp/signin', 'post')!;
    expect(Object.keys(signin.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429']));
    expect(JSON.stringify(signin.responses['200']!.content)).toContain('expiresIn');
    expect(Object.keys(op('/api/v1/idp/refresh', 'post')!.responses)).toEqual(expect.arrayContaining(['200', '401', '503']));
    expect(Object.keys(op('/api/v1/idp/me', 'get')!.responses)).toEqual(expect.arrayContaining(['200', '401']));
  });

  test('when the built-in identity provider is described then its x-amz-json body and AuthenticationResult are documented', () => {
    const local = op('/local-idp', 'post')!;
    expect(bodyFields('/local-idp', 'post', 'application/x-amz-json-1.1')).toEqual(
      expect.arrayContaining(['AuthFlow', 'AuthParameters', 'ClientId', 'Username', 'Password', 'ConfirmationCode', 'AccessToken']),
    );
    const ok = JSON.stringify(local.responses['200']!.content!['application/x-amz-json-1.1']!.schema);
    for (const f of ['AuthenticationResult', 'IdToken', 'AccessToken', 'RefreshToken', 'ExpiresIn', 'TokenType']) expect(ok).toContain(f);
    expect(op('/local-idp/.well-known/jwks.json', 'get')).toBeDefined();
  });
});
