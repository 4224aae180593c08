/** The two servers of bench/compare.ts, each started as its own process; each prints `port=<n>`. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { buildApp } from '../src/app';
import { parseConfig } from '../src/config';
import { createContext } from '../src/context';
import { connectDatabase } from '../src/db/connect';
import { createDb } from '../src/db/knex';
import { createLogger } from '../src/infra/logger';
import { registerJobs } from '../src/jobs';
import { listCards, type ListFilter } from '../src/modules/discovery/discovery.repo';
import { readDetail } from '../src/modules/fundraisers/fundraisers.repo';
import { captureStatement as capture, type Captured } from './wrk';

const POOL_MAX = 10; // the API's knex pool default (src/db/knex.ts)

function announce(server: http.Server) {
  process.stdout.write(`port=${(server.address() as AddressInfo).port}\n`);
  process.on('SIGTERM', () => process.exit(0));
}

/** The API as `npm start` runs it (production, silent logs, proxy trusted for X-Forwarded-For). */
export async function serveApp(): Promise<void> {
  const config = parseConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', TRUST_PROXY: 'true' });
  const handle = await connectDatabase(config, { migrate: false });
  const ctx = createContext({ config, db: handle.db, log: createLogger('silent') });
  registerJobs(ctx);
  const server = buildApp(ctx).listen(0, '127.0.0.1', () => announce(server));
}


const listFilter = (offset: number): ListFilter => ({
  status: 'all', categoryIds: null, q: null, projects: null, sort: 'newest', lang: null, limit: 20, offset, near: null,
});

/** node:http + pg, running the API's own SQL for the same rows; the rows go out as JSON, nothing else. */
export async function serveBare(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  const knex = createDb(url, { max: 1 });
  const anyRow = (await knex.raw(`select id, slug from fundraisers where slug like 'bench-%' limit 1`)).rows[0];
  const bySlug = await capture(knex, () => readDetail(knex, { slug: anyRow.slug }, undefined));
  const byId = await capture(knex, () => readDetail(knex, { id: anyRow.id }, undefined));
  const lists = new Map<number, Captured>();
  for (const offset of [0, 20, 40]) lists.set(offset, await capture(knex, () => listCards(knex, listFilter(offset), { knownTotal: 0 })));
  const total = Number(
    (await knex.raw(`select count(*)::int n from fundraisers f where f.deleted_at is null and f.visibility = 'public' and f.status in ('active','ended')`)).rows[0].n,
  );
  await knex.destroy();

  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
  const withLast = (c: Captured, v: unknown) => [...c.bindings.slice(0, -1), v];
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const json = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
    res.end(json);
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://bare');
      const slug = /^\/api\/v1\/fundraisers\/slug\/([^/]+)$/.exec(u.pathname);
      const id = /^\/api\/v1\/fundraisers\/([0-9a-f-]{36})$/.exec(u.pathname);
      if (slug || id) {
        const q = slug ? bySlug : byId;
        const r = await pool.query(q.sql, withLast(q, slug ? decodeURIComponent(slug[1]!).toLowerCase() : id![1]));
        return r.rows[0] ? send(res, 200, { data: r.rows[0] }) : send(res, 404, { error: 'Not found' });
      }
      const offset = Number(u.searchParams.get('offset') ?? 0);
      const list = u.pathname === '/api/v1/fundraisers' ? lists.get(offset) : undefined;
      if (!list) return send(res, 404, { error: 'Not found' });
      const r = await pool.query(list.sql, list.bindings);
      return send(res, 200, { data: r.rows, pagination: { limit: 20, offset, total } });
    })().catch((err) => send(res, 500, { error: String(err) }));
  });
  server.listen(0, '127.0.0.1', () => announce(server));
}
