import { Pool } from 'pg';
import request from 'supertest';
import { modules } from '../../src/modules';
import type { RouteDef } from '../../src/http/define-routes';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';

/**
 * Every table a read-cached answer shows must notify the cache on commit (read_cache_notify
 * triggers), or an edit to it would be served stale. The cached routes come from the route
 * tables (`readCache: true`); each is called as a guest on a fresh instance (a miss, so its SQL
 * runs), every statement it sends is captured and resolved to base tables with
 * `EXPLAIN (FORMAT JSON)` (views, subplans and CTEs included), and each such table must carry
 * the trigger. A join added to a cached read therefore fails here until its table notifies.
 */
const db = testDb();
const pg = new Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 });

interface Sample {
  f: FundraiserRow;
  categorySlug: string;
}

/** The requests that exercise each cached route's SQL (one per query shape). A new cached route needs its line here. */
const EXAMPLES: Record<string, (s: Sample) => string[]> = {
  'get /fundraisers/slug/:slug': (s) => [`/fundraisers/slug/${s.f.slug}`, `/fundraisers/slug/${s.f.slug}?lang=es`],
  'get /fundraisers/:id': (s) => [`/fundraisers/${s.f.id}`, `/fundraisers/${s.f.id}?lang=es`],
  'get /fundraisers/:id/stats': (s) => [`/fundraisers/${s.f.id}/stats`],
  'get /fundraisers': (s) => [
    '/fundraisers',
    '/fundraisers?sort=raised',
    '/fundraisers?status=ended',
    '/fundraisers?projects=true',
    `/fundraisers?category=${s.categorySlug}`,
    '/fundraisers?lang=es',
  ],
  'get /fundraisers/cities': () => ['/fundraisers/cities'],
  'get /categories': () => ['/categories', '/categories?lang=es'],
};

/** The routes that declare the read cache, from the route tables the app mounts. */
function cachedRoutes(): { key: string; def: RouteDef }[] {
  return modules.flatMap((m) => m.routes.filter((r) => r.readCache).map((def) => ({ key: `${def.method} ${m.prefix}${def.path}`, def })));
}

interface Captured {
  sql: string;
  bindings: unknown[];
}

/** Base tables in a plan: every "Relation Name", through subplans, init plans and CTEs. */
function relationsOf(plan: unknown, out: Set<string>, functions: Set<string>): void {
  if (Array.isArray(plan)) return plan.forEach((p) => relationsOf(p, out, functions));
  if (!plan || typeof plan !== 'object') return;
  const node = plan as Record<string, unknown>;
  if (typeof node['Relation Name'] === 'string') out.add(`${(node.Schema as string) ?? 'public'}.${node['Relation Name'] as string}`);
  if (typeof node['Function Name'] === 'string') functions.add(`${(node.Schema as string) ?? ''}.${node['Function Name'] as string}`);
  for (const v of Object.values(node)) if (v && typeof v === 'object') relationsOf(v, out, functions);
}

async function tablesRead(statements: Captured[]): Promise<{ tables: Set<string>; functions: Set<string> }> {
  const tables = new Set<string>();
  const functions = new Set<string>();
  for (const s of statements) {
    if (!/^\s*(select|with)\b/i.test(s.sql)) continue;
    // The captured text is the driver's ($1, $2, ...): explain it through a plain pg client.
    const r = await pg.query(`explain (format json, verbose) ${s.sql}`, s.bindings);
    relationsOf(r.rows[0]['QUERY PLAN'], tables, functions);
  }
  return { tables, functions };
}

/** Tables with a row trigger calling read_cache_notify on insert, update and delete. */
async function notifyingTables(): Promise<Set<string>> {
  const r = await db.raw(`
    select n.nspname || '.' || c.relname as t
      from pg_trigger tg join pg_class c on c.oid = tg.tgrelid join pg_namespace n on n.oid = c.relnamespace
     where not tg.tgisinternal and tg.tgenabled <> 'D' and tg.tgfoid = 'read_cache_notify'::regproc
       and (tg.tgtype & 1) = 1 and (tg.tgtype & 4) = 4 and (tg.tgtype & 8) = 8 and (tg.tgtype & 16) = 16`);
  return new Set((r.rows as { t: string }[]).map((x) => x.t));
}

let app: TestApp;
let sample: Sample;
const captured: Captured[] = [];
const capture = (q: { sql: string; bindings?: unknown[] }) => captured.push({ sql: q.sql, bindings: q.bindings ?? [] });

beforeAll(async () => {
  const owner = await createUser(db, { name: 'Sources Owner' });
  const cat = await db('categories').first('id', 'slug');
  const f = await createFundraiser(db, owner.id, { category_id: cat?.id ?? null, location_label: 'Austin, TX', location_lat: 30.27, location_lng: -97.74 } as Partial<FundraiserRow>);
  sample = { f, categorySlug: cat?.slug ?? 'none' };
  app = createTestApp({ env: { READ_CACHE: 'true' } });
  expect(await app.ctx.readCache!.ready()).toBe(true);
});

afterAll(async () => {
  await app?.ctx.readCache?.close();
  await pg.end();
  await closeDb();
});

test('every read-cached route has example requests here (a new one must add its own)', () => {
  const routes = cachedRoutes();
  expect(routes.length).toBeGreaterThan(0);
  expect(routes.map((r) => r.key).filter((k) => !EXAMPLES[k])).toEqual([]);
});

test('every table the read-cached answers read notifies the read cache on commit', async () => {
  const perRoute: Record<string, string[]> = {};
  const all = new Set<string>();
  const allSql: string[] = [];
  for (const { key } of cachedRoutes()) {
    let statements = 0;
    for (const path of EXAMPLES[key]!(sample)) {
      captured.length = 0;
      db.on('query', capture);
      try {
        await request(app.app).get(`/api/v1${path}`).expect(200);
      } finally {
        db.off('query', capture);
      }
      statements += captured.length;
      allSql.push(...captured.map((q) => q.sql));
      const { tables, functions } = await tablesRead(captured);
      expect([...functions].filter((fn) => !fn.startsWith('pg_catalog.'))).toEqual([]);
      perRoute[path] = [...tables].sort();
      for (const t of tables) all.add(t);
    }
    expect({ key, statements: statements > 0 }).toEqual({ key, statements: true }); // misses: the reads ran their SQL
  }
  if (process.env.READ_CACHE_SOURCES_DUMP) require('node:fs').writeFileSync(process.env.READ_CACHE_SOURCES_DUMP, JSON.stringify(perRoute, null, 1));
  // A function of the project's own called in a cached read hides its tables from the plan: none may be.
  const own = await pg.query(`select distinct p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname not in ('pg_catalog', 'information_schema') and p.prokind = 'f'
       and p.prolang in (select oid from pg_language where lanname in ('sql', 'plpgsql'))
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`);
  const used = (own.rows as { proname: string }[]).map((r) => r.proname).filter((name) => allSql.some((q) => new RegExp(`\\b${name}\\s*\\(`, 'i').test(q)));
  expect(used).toEqual([]);
  const notifying = await notifyingTables();
  const missing = [...all].filter((t) => !notifying.has(t)).sort();
  expect({ missing, perRoute }).toEqual({ missing: [], perRoute });
});

test('when a route that does not declare readCache uses the cache, then the cache refuses it (it would escape the test above)', async () => {
  const res = { locals: {} } as never;
  const compute = async () => ({ answer: { body: Buffer.from('{}'), etag: '"x"', cacheControl: null, vary: null, status: 200 }, cacheable: true, fundraiserId: null });
  await expect(app.ctx.readCache!.serve({} as never, res, 'undeclared', compute)).rejects.toThrow(/readCache: true/);
  expect(() => app.ctx.readCache!.offer(res, 'undeclared', 0, { answer: { body: Buffer.from('{}'), etag: '"x"', cacheControl: null, vary: null, status: 200 }, cacheable: true, fundraiserId: null })).toThrow(/readCache: true/);
});
