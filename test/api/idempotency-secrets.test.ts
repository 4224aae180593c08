import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { RouteDef } from '../../src/http/define-routes';
import { idempotencyApplies } from '../../src/http/idempotency';
import { buildOpenApi } from '../../src/http/openapi/openapi';
import { SECRET_REDACTED } from '../../src/http/secret-fields';
import { up as redactStoredSecrets } from '../../migrations/20261127060100_redact_idempotent_secrets';
import { modulesFor } from '../../src/modules';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, sessionCookies } from '../helpers/auth';

/**
 * Decision (docs/decisions/0010-idempotency-keys.md): a stored Idempotency-Key answer never holds a secret. Every route
 * whose answer carries one is listed from the route tables (its `secretFields`), and a scan of
 * the OpenAPI answers finds secret-looking properties that are neither declared nor on the
 * reasoned allowlist below, so a new secret-bearing route fails here until it is declared.
 */
afterAll(closeDb);

const t = createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const routes = modulesFor(t.ctx.config).flatMap((mod) =>
  mod.root ? [] : mod.routes.filter(idempotencyApplies).map((r) => ({ r, path: `/api/v1${mod.prefix}${r.path === '/' ? '' : r.path}` })),
);
const opName = (r: RouteDef, path: string) => `${r.method.toUpperCase()} ${path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/+$/, '')}`;

/** Property names that may hold a secret: each hit is declared in `secretFields` or reasoned here. */
const SECRET_LOOKING = /secret|api_?key|token|password|passwd|credential|signature|(^|_)otp|(^|_)code$|url$|link/i;
const NOT_SECRET: Record<string, string> = {
  // A processor's payment capability is what an idempotent retry exists to hand back: losing it
  // would strand the gift (no other route answers it again). It only lets the holder pay that one
  // payment with the publishable key; Stripe's own idempotency replays it too.
  'POST /api/v1/payments/create-intent data.client_secret': 'the payment intent the retry must complete',
  'POST /api/v1/communities/{id}/join/paid data.client_secret': 'the setup/payment intent the retry must complete',
  'POST /api/v1/donations data.url': 'the checkout page of this one gift (the replay is what makes a retry one gift)',
  'POST /api/v1/platform/tips data.url': 'the checkout page of this one tip',
  // Public media addresses (served to anyone who reads the campaign), or addresses checked on every request.
  'POST /api/v1/fundraisers data.video_url': 'public campaign video',
  'POST /api/v1/admin/fundraisers/{id}/approve data.video_url': 'public campaign video',
  'POST /api/v1/admin/fundraisers/{id}/reject data.video_url': 'public campaign video',
  'POST /api/v1/fundraisers/{id}/media data.url': 'public media file',
  'POST /api/v1/image-crops data.url': 'public media file',
  'POST /api/v1/image-crops data.original_url': 'public media file',
  'POST /api/v1/images/generate data.url': 'public media file',
  'POST /api/v1/admin/dmca-notices/{id}/takedown data.removed[].url': 'the public address taken down',
  'POST /api/v1/org-admin/{slug}/documents data.url': 'org.read is checked on every request to it; not a capability',
  // Names that only look like secrets.
  'POST /api/v1/fundraisers data.trustStatus.userMessages[].code': 'a message code',
  'POST /api/v1/admin/fundraisers/{id}/approve data.trustStatus.userMessages[].code': 'a message code',
  'POST /api/v1/admin/fundraisers/{id}/reject data.trustStatus.userMessages[].code': 'a message code',
  'POST /api/v1/api-keys key': 'the key\'s id and prefix, what a replay must show',
  'POST /api/v1/webhook-endpoints data.url': 'the owner\'s own address, kept in webhook_endpoints and shown by every read of the endpoint',
};
/** Idempotent POSTs without a response schema (nothing to scan): each answers 204 with no body. */
const NO_BODY = new Set(['POST /api/v1/referrals/clicks', 'POST /api/v1/presence/fundraisers/{id}']);

type Schema = Record<string, any>;
/** Every property path of an answer schema (`data.secret`, `data.removed[].url`), through refs and unions. */
function propertyPaths(doc: Schema, schema: Schema | undefined, at: string, out: Set<string>, seen = new Set<Schema>()): void {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
  seen.add(schema);
  if (schema.$ref) return propertyPaths(doc, doc.components.schemas[String(schema.$ref).split('/').pop()!], at, out, seen);
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const s of schema[k] ?? []) propertyPaths(doc, s, at, out, seen);
  if (schema.items) propertyPaths(doc, schema.items, `${at}[]`, out, seen);
  for (const [name, s] of Object.entries<Schema>(schema.properties ?? {})) {
    const path = at ? `${at}.${name}` : name;
    out.add(path);
    propertyPaths(doc, s, path, out, new Set(seen));
  }
}

/** How to call each secret-bearing route for real: answers the request (with `key`) and where the secrets are. */
type Caller = (key: string) => Promise<request.Response>;
const signedIn = async () => authHeaders(t, await createUser(testDb()));
const CALLERS: Record<string, () => Promise<Caller>> = {
  'POST /api/v1/api-keys': async () => {
    const cookies = await sessionCookies(t, await createUser(testDb()));
    return async (key) => request(t.app).post('/api/v1/api-keys').set(cookies).set('Idempotency-Key', key).send({ name: 'lost answer' });
  },
  'POST /api/v1/webhook-endpoints': async () => {
    const h = await signedIn();
    return async (key) => request(t.app).post('/api/v1/webhook-endpoints').set(h).set('Idempotency-Key', key).send({ url: 'http://127.0.0.1:9/hook', events: ['*'] });
  },
  'POST /api/v1/webhook-endpoints/{id}/rotate-secret': async () => {
    const h = await signedIn();
    const ep = await request(t.app).post('/api/v1/webhook-endpoints').set(h).send({ url: 'http://127.0.0.1:9/hook', events: ['*'] });
    return async (key) => request(t.app).post(`/api/v1/webhook-endpoints/${ep.body.data.id}/rotate-secret`).set(h).set('Idempotency-Key', key);
  },
  'POST /api/v1/processor/connect/onboarding': async () => {
    const h = await signedIn();
    return async (key) => request(t.app).post('/api/v1/processor/connect/onboarding').set(h).set('Idempotency-Key', key).send({});
  },
  'POST /api/v1/processor/connect/dashboard-link': async () => {
    const h = await signedIn();
    expect((await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({})).status).toBe(200);
    return async (key) => request(t.app).post('/api/v1/processor/connect/dashboard-link').set(h).set('Idempotency-Key', key).send({});
  },
};

const valueAt = (body: unknown, path: string) => path.split('.').reduce<any>((v, k) => (v == null ? undefined : v[k]), body);
const parentOf = (body: unknown, path: string) => valueAt(body, path.split('.').slice(0, -1).join('.')) ?? body;

const declared = routes.filter(({ r }) => r.secretFields?.length);

describe('secrets in the idempotency store', () => {
  test('when the answers are scanned, then every secret-looking property is declared in secretFields or reasoned as not secret', () => {
    const doc = buildOpenApi(modulesFor(t.ctx.config)) as Schema;
    const undeclared: string[] = [];
    for (const { r, path } of routes) {
      const name = opName(r, path);
      if (!r.response) {
        if (!NO_BODY.has(name)) undeclared.push(`${name}: no response schema to scan`);
        continue;
      }
      const op = doc.paths[name.split(' ')[1]!][r.method];
      const paths = new Set<string>();
      for (const [status, answer] of Object.entries<Schema>(op.responses)) {
        // Success answers only: the error body's `code` is an error code, and errors are never replayed with secrets.
        if (!/^2/.test(status)) continue;
        for (const media of Object.values<Schema>(answer.content ?? {})) propertyPaths(doc, media.schema, '', paths);
      }
      for (const p of paths) {
        const last = p.split('.').pop()!.replace('[]', '');
        // The replay's flag beside a nulled secret (documented with it) is no secret.
        const looksSecret = last !== SECRET_REDACTED && SECRET_LOOKING.test(last);
        if (looksSecret && !r.secretFields?.includes(p) && !NOT_SECRET[`${name} ${p}`]) undeclared.push(`${name} ${p}`);
      }
      // A declared path must name a property the answer has (a typo would redact nothing).
      for (const p of r.secretFields ?? []) if (!paths.has(p)) undeclared.push(`${name} declares ${p}, which its answer does not have`);
    }
    expect(undeclared).toEqual([]);
    expect(declared.map(({ r, path }) => opName(r, path)).sort()).toEqual(Object.keys(CALLERS).sort());
  });

  test.each(declared.map(({ r, path }) => [opName(r, path), r.secretFields!] as const))(
    'when %s is called with an Idempotency-Key and replayed, then no secret reaches idempotency_keys and the replay answers null + secret_redacted: true',
    async (name, fields) => {
      const call = await CALLERS[name]!();
      const key = randomUUID();
      const first = await call(key);
      expect(first.status).toBeLessThan(300);
      const secrets = fields.map((f) => valueAt(first.body, f));
      for (const s of secrets) expect(typeof s === 'string' && s.length >= 16).toBe(true);

      const rows = await testDb()('idempotency_keys').where({ key });
      expect(rows).toHaveLength(1);
      const stored = `${rows[0].response_body?.toString('utf8')} ${JSON.stringify(rows[0].response_headers)}`;
      for (const s of secrets) expect(stored).not.toContain(s);

      const replay = await call(key);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.status).toBe(first.status);
      for (const f of fields) {
        expect(valueAt(replay.body, f)).toBeNull();
        expect(parentOf(replay.body, f).secret_redacted).toBe(true);
      }
      // Everything else the first answer said (ids, prefixes) is replayed as it was.
      const without = (body: unknown) => JSON.parse(JSON.stringify(body, (k, v) => (k === 'secret_redacted' ? undefined : v)));
      const blank = (body: unknown) => {
        const copy = without(body);
        for (const f of fields) parentOf(copy, f)[f.split('.').pop()!] = null;
        return copy;
      };
      expect(without(replay.body)).toEqual(blank(first.body));
      expect(JSON.stringify(first.body)).not.toContain('secret_redacted');
    },
  );
});

describe('answers stored before secretFields', () => {
  test('when the migration runs over stored secret answers, then they are redacted in place (or deleted when not JSON) and other answers are left alone', async () => {
    const row = (key: string, path: string, body: string) => ({
      scope: `migration-${randomUUID()}`, key, method: 'POST', path, fingerprint: 'f', state: 'complete', claim: randomUUID(),
      status_code: 201, response_headers: JSON.stringify({ 'content-type': 'application/json', etag: 'W/"x"' }), response_body: Buffer.from(body),
    });
    const apiKey = row('a', '/api/v1/api-keys', JSON.stringify({ api_key: 'ak_live_stored_secret', key: { id: 'k1', prefix: 'ak_live_stor' } }));
    const rotated = row('b', `/api/v1/webhook-endpoints/${randomUUID()}/rotate-secret`, JSON.stringify({ data: { secret: 'whsec_stored' } }));
    const notJson = row('c', '/api/v1/webhook-endpoints', 'whsec_in_plain_text');
    const gift = row('d', '/api/v1/donations', JSON.stringify({ data: { url: 'https://checkout.test/cs_1' } }));
    await testDb()('idempotency_keys').insert([apiKey, rotated, notJson, gift]);

    await redactStoredSecrets(testDb());

    const after = async (r: { scope: string; key: string }) => testDb()('idempotency_keys').where({ scope: r.scope, key: r.key }).first();
    const a = await after(apiKey);
    expect(JSON.parse(a.response_body.toString())).toEqual({ api_key: null, secret_redacted: true, key: { id: 'k1', prefix: 'ak_live_stor' } });
    expect(a.response_headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse((await after(rotated)).response_body.toString())).toEqual({ data: { secret: null, secret_redacted: true } });
    expect(await after(notJson)).toBeUndefined();
    expect((await after(gift)).response_body.toString()).toBe(gift.response_body.toString());
  });
});
