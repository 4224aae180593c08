import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { defineRoutes, route } from '../../src/http/define-routes';
import { buildOpenApi } from '../../src/http/openapi/openapi';
import { modulesFor } from '../../src/modules';

// Every shipped table, the sandbox processor's pages included (mounted when no STRIPE_SECRET_KEY is set).
const modules = modulesFor({ STRIPE_SECRET_KEY: undefined });
import { holdToContract, takeContractMismatches } from '../helpers/openapi-contract';

// A documented module whose handlers (below, on a bare Express app) answer what the document does not say.
const probe = defineRoutes(
  '/contract-probe',
  [
    route({ method: 'get', path: '/open', auth: 'optional', response: z.object({ n: z.number().int() }), handler: () => ({ n: 1 }) }),
    route({ method: 'get', path: '/closed', auth: 'required', response: z.object({ n: z.number().int() }), handler: () => ({ n: 1 }) }),
  ],
  { tag: 'test' },
);

function appAnswering(open: (res: express.Response) => void, closed: (res: express.Response) => void = (res) => res.json({ n: 1 })) {
  const app = express();
  app.get('/api/v1/contract-probe/open', (_req, res) => open(res));
  app.get('/api/v1/contract-probe/closed', (_req, res) => closed(res));
  app.use((_req, res) => res.status(404).json({ error: 'Not found', message: 'No route' }));
  return holdToContract(app, [probe]);
}

afterEach(() => {
  // These tests provoke mismatches on purpose and read them themselves.
  takeContractMismatches();
});

describe('the OpenAPI contract check on every answer', () => {
  test('when an answer is as documented then nothing is recorded', async () => {
    const app = appAnswering((res) => res.json({ n: 2 }));
    expect((await request(app).get('/api/v1/contract-probe/open')).status).toBe(200);
    expect((await request(app).get('/api/v1/contract-probe/closed').set('Authorization', 'Bearer ak_live_x')).status).toBe(200);
    expect((await request(app).get('/api/v1/no-such-thing')).status).toBe(404);
    expect(takeContractMismatches()).toEqual([]);
  });

  test('when the status is not documented for the operation then it is recorded', async () => {
    await request(appAnswering((res) => res.status(202).json({ n: 2 }))).get('/api/v1/contract-probe/open');
    expect(takeContractMismatches()).toEqual([expect.stringMatching(/GET \/api\/v1\/contract-probe\/open .*-> 202: status not documented/)]);
  });

  test('when a success is answered under `default` (errors only) then it is recorded, an error there is not', async () => {
    await request(appAnswering((res) => res.status(418).json({ error: 'Teapot', message: 'short and stout' }))).get('/api/v1/contract-probe/open');
    expect(takeContractMismatches()).toEqual([]);
    await request(appAnswering((res) => res.status(418).json({ nope: true }))).get('/api/v1/contract-probe/open');
    expect(takeContractMismatches()).toEqual([expect.stringMatching(/-> 418: body off-schema: .*must have required property 'error'/)]);
  });

  test('when the JSON body is off-schema then it is recorded with the failing path', async () => {
    await request(appAnswering((res) => res.json({ n: 'two' }))).get('/api/v1/contract-probe/open');
    expect(takeContractMismatches()).toEqual([expect.stringMatching(/-> 200: body off-schema: \/n must be integer/)]);
  });

  test('when the media type is not documented then it is recorded', async () => {
    await request(appAnswering((res) => res.type('text/plain').send('2'))).get('/api/v1/contract-probe/open');
    expect(takeContractMismatches()).toEqual([expect.stringMatching(/media type text\/plain not documented/)]);
  });

  test('when a guest gets a success from an operation that documents a credential as required then it is recorded', async () => {
    const app = appAnswering((res) => res.json({ n: 2 }));
    await request(app).get('/api/v1/contract-probe/closed');
    expect(takeContractMismatches()).toEqual([expect.stringMatching(/a guest got a success, but the operation's security does not list \{\}/)]);
    // The same request with a credential is what the document describes.
    await request(app).get('/api/v1/contract-probe/closed').set('Cookie', 'access_token=abc');
    expect(takeContractMismatches()).toEqual([]);
  });

  test('when a path the document does not have answers anything but a 404 then it is recorded', async () => {
    const app = express();
    app.get('/api/v1/undocumented', (_req, res) => res.json({ ok: true }));
    await request(holdToContract(app, [probe])).get('/api/v1/undocumented');
    expect(takeContractMismatches()).toEqual([expect.stringMatching(/GET \/api\/v1\/undocumented -> 200: no operation in the document answers/)]);
  });
});

describe('the document says who may call', () => {
  test('when an operation admits guests then its security lists {}; when it needs a credential it lists only schemes', () => {
    const doc = buildOpenApi(modules) as { paths: Record<string, Record<string, { security: Array<Record<string, string[]>>; description: string }>> };
    let guests = 0;
    for (const mod of modules) {
      for (const r of mod.routes) {
        const p = ((mod.root ? '' : '/api/v1') + mod.prefix + (r.path === '/' ? '' : r.path)).replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/+$/, '') || '/';
        const security = doc.paths[p]![r.method]!.security;
        const admitsGuest = security.some((s) => Object.keys(s).length === 0);
        expect({ op: `${r.method} ${p}`, admitsGuest }).toEqual({ op: `${r.method} ${p}`, admitsGuest: r.auth === 'none' || r.auth === 'optional' });
        if (admitsGuest) guests += 1;
        else expect(security.length).toBeGreaterThan(0);
      }
    }
    expect(guests).toBeGreaterThan(50);
  });

  test('when a shipped operation succeeds with a body then its route declares the body (a schema or a media type)', () => {
    const undeclared = modules.flatMap((mod) =>
      mod.routes
        .filter((r) => (r.status ?? 200) !== 204 && ((r.status ?? 200) < 300 || (r.status ?? 200) >= 400) && !r.response && !r.produces)
        .map((r) => `${r.method} ${mod.prefix}${r.path}`),
    );
    expect(undeclared).toEqual([]);
  });

  test('when a test builds an app then it goes through the helper that holds it to the document', () => {
    const root = path.join(__dirname, '..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (/\.ts$/.test(e.name) && full !== path.join(root, 'helpers', 'app.ts') && /\bbuildApp\(/.test(fs.readFileSync(full, 'utf8'))) offenders.push(path.relative(root, full));
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
