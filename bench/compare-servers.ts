/** The two servers of bench/compare.ts, each started as its own process; each prints `port=<n>`. */
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { buildApp } from '../src/app';
import { parseConfig } from '../src/config';
import { createContext } from '../src/create-context';
import { connectDatabase } from '../src/db/connect';
import { createDb } from '../src/db/knex';
import { createLogger } from '../src/infra/logger';
import { registerJobs } from '../src/jobs';
import { listCards, type ListFilter } from '../src/modules/discovery/discovery.reads';
import { readDetail } from '../src/modules/fundraisers/fundraisers.repo';
import { captureStatement as capture, type Captured } from './wrk';

/** The signed-in viewer of the bench (owns no campaign): the app server prints an ID token for it. */
const VIEWER_EMAIL = 'bench-viewer@bench.test';

const POOL_MAX = 10; // the API's knex pool default (src/db/knex.ts)

function announce(server: http.Server) {
  process.stdout.write(`port=${(server.address() as AddressInfo).port}\n`);
  process.on('SIGTERM', () => process.exit(0));
}

/**
 * The API as `npm start` runs it (production, proxy trusted for X-Forwarded-For), with silent logs
 * unless BENCH_LOG_LEVEL names a level (`info` is npm start's: a line per request on stdout).
 */
export async function serveApp(): Promise<void> {
  const level = process.env.BENCH_LOG_LEVEL ?? 'silent';
  const config = parseConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: level, RUN_JOBS: 'false', TRUST_PROXY: 'true' });
  const handle = await connectDatabase(config, { migrate: false });
  const ctx = createContext({ config, db: handle.db, log: createLogger(config.LOG_LEVEL) });
  registerJobs(ctx);
  // Ready to answer from the cache before the load starts (it passes reads through until LISTEN is on).
  if (ctx.readCache && !(await ctx.readCache.ready())) throw new Error('read cache listener did not start');
  const viewer =
    (await handle.db('users').where({ email: VIEWER_EMAIL }).first('id')) ??
    (await handle.db('users').insert({ email: VIEWER_EMAIL, name: 'Bench Viewer', email_verified: true }).returning('id'))[0];
  const tokens = await ctx.idp.issueTokensForUser(viewer.id);
  process.stdout.write(`token=${tokens.idToken}\n`);
  if (process.env.PROFILE_OUT) profileOnSignals(process.env.PROFILE_OUT);
  const server = buildApp(ctx).listen(0, '127.0.0.1', () => announce(server));
}

/**
 * bench/profile.ts: V8's CPU profiler (what `node --cpu-prof` runs) from SIGUSR2 to SIGHUP, so the
 * profile holds the measured load only, not start-up (tsx compiling) or the warm-up.
 */
function profileOnSignals(file: string): void {
  const session = new inspector.Session();
  session.connect();
  process.on('SIGUSR2', () => session.post('Profiler.enable', () => session.post('Profiler.start')));
  process.on('SIGHUP', () =>
    session.post('Profiler.stop', (err, res) => {
      if (!err) fs.writeFileSync(file, JSON.stringify(res.profile));
      process.stdout.write('profile-written\n');
    }),
  );
}


const listFilter = (offset: number): ListFilter => ({
  status: 'all', categoryIds: null, q: null, projects: null, sort: 'newest', lang: null, limit: 20, offset, near: null,
});

/** The bare server's routing and answer: `detail(slugOrId, isSlug)` and `list(offset)` give the rows. */
function bareServer(
  detail: (key: string, isSlug: boolean) => Promise<unknown>,
  list: (offset: number) => Promise<unknown[] | undefined>,
  total: number,
): http.Server {
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const json = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
    res.end(json);
  };
  return http.createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://bare');
      const slug = /^\/api\/v1\/fundraisers\/slug\/([^/]+)$/.exec(u.pathname);
      const id = /^\/api\/v1\/fundraisers\/([0-9a-f-]{36})$/.exec(u.pathname);
      if (slug || id) {
        const row = await detail(slug ? decodeURIComponent(slug[1]!).toLowerCase() : id![1]!, !!slug);
        return row ? send(res, 200, { data: row }) : send(res, 404, { error: 'Not found' });
      }
      const offset = Number(u.searchParams.get('offset') ?? 0);
      const rows = u.pathname === '/api/v1/fundraisers' ? await list(offset) : undefined;
      if (!rows) return send(res, 404, { error: 'Not found' });
      return send(res, 200, { data: rows, pagination: { limit: 20, offset, total } });
    })().catch((err) => send(res, 500, { error: String(err) }));
  });
}

const PUBLIC_TOTAL = `select count(*)::int n from fundraisers f where f.deleted_at is null and f.visibility = 'public' and f.status in ('active','ended')`;

/**
 * node:http + pg with the least SQL that answers the same reads: the row with its category and
 * owner (one join each, no 24-hour count, no translation) and a page of card columns in the
 * list's order. The floor the issue measures the API against.
 */
export async function serveMinimal(): Promise<void> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: POOL_MAX });
  const total = Number((await pool.query(PUBLIC_TOTAL)).rows[0].n);
  const detailSql = (where: string) => `select f.id, f.title, f.slug, f.summary, f.story_html, f.goal_amount_cents, f.currency,
      f.status, f.visibility, f.type, f.is_project, f.cover_image, f.location, f.end_date, f.raised_cents, f.tips_cents,
      f.donor_count, f.donation_count, f.owner_user_id, f.created_at,
      c.slug as category, u.name as owner_name, u.avatar as owner_avatar, u.profile_slug as owner_profile_slug
    from fundraisers f left join categories c on c.id = f.category_id left join users u on u.id = f.owner_user_id
    where ${where} and f.deleted_at is null and f.visibility <> 'private'`;
  const bySlug = detailSql('f.slug = $1');
  const byId = detailSql('f.id = $1');
  const listSql = `select f.id, f.title, f.slug, f.summary, f.goal_amount_cents, f.raised_cents, f.donor_count, f.currency,
      f.status, f.cover_image, f.location, f.end_date, u.name as owner_name, u.avatar as owner_avatar
    from fundraisers f join users u on u.id = f.owner_user_id
    where f.deleted_at is null and f.visibility = 'public' and f.status in ('active','ended')
    order by f.created_at desc, f.id desc limit 20 offset $1`;
  const server = bareServer(
    async (key, isSlug) => (await pool.query(isSlug ? bySlug : byId, [key])).rows[0],
    async (offset) => (await pool.query(listSql, [offset])).rows,
    total,
  );
  server.listen(0, '127.0.0.1', () => announce(server));
}

/** node:http + pg, running the API's own SQL for the same rows; the rows go out as JSON, nothing else. */
export async function serveBare(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  const knex = createDb(url, { max: 1 });
  const anyRow = (await knex.raw(`select id, slug from fundraisers where slug like 'bench-%' limit 1`)).rows[0];
  const bySlug = await capture(knex, () => readDetail(knex, { slug: anyRow.slug }, undefined));
  const byId = await capture(knex, () => readDetail(knex, { id: anyRow.id }, undefined));
  const lists = new Map<number, Captured>();
  for (const offset of [0, 20, 40]) lists.set(offset, await capture(knex, () => listCards(knex, listFilter(offset), { knownTotal: 0 })));
  const total = Number((await knex.raw(PUBLIC_TOTAL)).rows[0].n);
  await knex.destroy();

  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
  const withLast = (c: Captured, v: unknown) => [...c.bindings.slice(0, -1), v];
  const server = bareServer(
    async (key, isSlug) => {
      const q = isSlug ? bySlug : byId;
      return (await pool.query(q.sql, withLast(q, key))).rows[0];
    },
    async (offset) => {
      const list = lists.get(offset);
      return list ? (await pool.query(list.sql, list.bindings)).rows : undefined;
    },
    total,
  );
  server.listen(0, '127.0.0.1', () => announce(server));
}
