import { createApiClient } from '../../clients/typescript/src';
import { modulesFor } from '../../src/modules';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';

afterAll(closeDb);

const t = createTestApp();
const server = serveForSandbox(t);

type Security = Array<Record<string, string[]>>;
/** What a generated client or a gateway concludes from `security`: a credential is needed unless `{}` is listed. */
const needsCredential = (security: Security | undefined) => Boolean(security?.length) && !security!.some((s) => Object.keys(s).length === 0);

describe('a guest through the OpenAPI-generated client (clients/typescript)', () => {
  test('when a guest reads campaigns with no credential configured, then no credential is sent, the reads answer 200, and the served document says none is needed', async () => {
    const owner = await createUser(testDb());
    const f = await createFundraiser(testDb(), owner.id);
    const sent: Array<{ auth: string | null; cookie: string | null }> = [];
    const client = createApiClient({
      baseUrl: server.base(),
      fetch: (input: string | URL | Request) => {
        const req = new Request(input);
        sent.push({ auth: req.headers.get('authorization'), cookie: req.headers.get('cookie') });
        return fetch(req);
      },
    });
    const doc = await client.GET('/api/v1/openapi.json');
    expect(doc.response.status).toBe(200);
    const paths = doc.data!.paths as Record<string, Record<string, { security?: Security }>>;
    const reads: Array<[string, () => Promise<{ response: Response }>]> = [
      ['/api/v1/fundraisers', () => client.GET('/api/v1/fundraisers', { params: { query: { limit: 5 } } })],
      ['/api/v1/fundraisers/{id}', () => client.GET('/api/v1/fundraisers/{id}', { params: { path: { id: f.id } } })],
      ['/api/v1/fundraisers/slug/{slug}', () => client.GET('/api/v1/fundraisers/slug/{slug}', { params: { path: { slug: f.slug } } })],
      ['/api/v1/categories', () => client.GET('/api/v1/categories')],
    ];
    for (const [path, read] of reads) {
      expect({ path, needsCredential: needsCredential(paths[path]!.get!.security) }).toEqual({ path, needsCredential: false });
      expect({ path, status: (await read()).response.status }).toEqual({ path, status: 200 });
    }
    expect(sent.length).toBe(reads.length + 1);
    expect(sent.every((s) => s.auth === null && s.cookie === null)).toBe(true);
  });

  test('when the served document is read, then every operation a guest may call lists {} and every other one names its credentials', async () => {
    const doc = (await createApiClient({ baseUrl: server.base() }).GET('/api/v1/openapi.json')).data!;
    const paths = doc.paths as Record<string, Record<string, { security?: Security }>>;
    for (const mod of modulesFor(t.ctx.config)) {
      for (const r of mod.routes) {
        const p = ((mod.root ? '' : '/api/v1') + mod.prefix + (r.path === '/' ? '' : r.path)).replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/+$/, '') || '/';
        const guestMayCall = r.auth === 'none' || r.auth === 'optional';
        expect({ op: `${r.method} ${p}`, needsCredential: needsCredential(paths[p]![r.method]!.security) }).toEqual({ op: `${r.method} ${p}`, needsCredential: !guestMayCall });
      }
    }
    expect(needsCredential(paths['/api/v1/openapi.json']!.get!.security)).toBe(false);
  });
});
