/**
 * GET /search and GET /home/activity at the scale: `npx tsx bench/search-activity.ts`
 * with DATABASE_URL set. Works on its own copy (cf_search_activity) of the leaderboard bench's
 * cf_leaderboard (100k campaigns, 1M settled gifts spread over 100k users; run bench/leaderboard.ts
 * first), adds achievements (each signed-in donor's first gift), 200k referral clicks, 50k visits
 * through shared links in the last hour and 2k visitors on pages now, all set-based. Then it
 * serves the real app on 127.0.0.1 and times the routes over HTTP (p50/p99, bounded by request
 * count and seconds), and writes the EXPLAIN (ANALYZE, BUFFERS) of each statement one request ran
 * into bench/results/search-activity.md.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Client } from 'pg';
import { buildApp } from '../src/app';
import { parseConfig } from '../src/config';
import { createContext } from '../src/create-context';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { createLogger } from '../src/infra/logger';
import { registerJobs } from '../src/jobs';
import { runLoad, type LoadResult } from './load';

const SOURCE = 'cf_leaderboard';
const TARGET = 'cf_search_activity';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const log = (m: string) => console.log(`[search-bench] ${m}`);
const urlOf = (base: string, name: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();

async function ensureCopy(base: string): Promise<boolean> {
  const c = new Client({ connectionString: base });
  await c.connect();
  try {
    if ((await c.query('select 1 from pg_database where datname = $1', [TARGET])).rowCount) return false;
    if (!(await c.query('select 1 from pg_database where datname = $1', [SOURCE])).rowCount) throw new Error(`${SOURCE} is missing: run bench/leaderboard.ts first`);
    await c.query(`create database ${TARGET} template ${SOURCE}`);
    return true;
  } finally {
    await c.end();
  }
}

async function seedActivity(db: Db): Promise<void> {
  const t0 = Date.now();
  await db.raw(`delete from achievements; delete from referral_clicks; delete from fundraiser_share_visits; delete from presence_pings`);
  // Every signed-in donor's first gift, as the donation.paid subscriber records it.
  await db.raw(`insert into achievements (user_id, kind, code, fundraiser_id, public, earned_at)
    select distinct on (d.donor_user_id) d.donor_user_id, 'first_gift', substr(md5(d.id::text), 1, 16),
           case when d.anonymous then null else d.fundraiser_id end, not d.anonymous, d.paid_at
      from donations d where d.status = 'paid' and d.donor_user_id is not null
     order by d.donor_user_id, d.paid_at`);
  const live = `(select id, row_number() over (order by id) - 1 as i from fundraisers
                  where deleted_at is null and visibility = 'public' and status in ('active','ended'))`;
  await db.raw(`insert into referral_clicks (fundraiser_id, ref, channel, caller_hash, created_at)
    select f.id, 'bench-user-' || (g % 2000), 'x', md5(g::text), now() - (g * interval '13 seconds')
      from generate_series(1, 200000) g join ${live} f on f.i = (g::bigint * 7919) % 80000`);
  await db.raw(`insert into fundraiser_share_visits (fundraiser_id, channel, created_at)
    select f.id, 'x', now() - (g * interval '70 milliseconds')
      from generate_series(1, 50000) g join ${live} f on f.i = (g::bigint * 104729) % 5000`);
  await db.raw(`insert into presence_pings (fundraiser_id, visitor_hash, seen_at)
    select f.id, md5('v' || g), now() - (g % 100) * interval '1 second'
      from generate_series(1, 2000) g join ${live} f on f.i = g % 300`);
  await db.raw('vacuum analyze');
  log(`activity seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

import type { Captured } from './wrk';
import { writeLatestRun } from './results';

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is required (a Postgres server)');
  const fresh = await ensureCopy(base);
  const url = urlOf(base, TARGET);
  const db = createDb(url, { max: 10 });
  const config = parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', TRUST_PROXY: 'true', DATABASE_URL: url });
  try {
    await migrateLatest(db);
    if (fresh || process.env.BENCH_RESEED) await seedActivity(db);
    const counts = (await db.raw(`select (select count(*) from fundraisers) f, (select count(*) from donations) d, (select count(*) from users) u,
      (select count(*) from achievements) a, (select count(*) from referral_clicks) c`)).rows[0];
    log(`data: ${JSON.stringify(counts)}`);

    // One server with the app's caches, one whose cache never keeps anything: the home feed is
    // cached 15 s, so the uncached server times what one request in every 15 s pays.
    const start = async (noCache: boolean) => {
      const ctx = createContext({ config, db, log: createLogger('silent') });
      if (noCache) {
        ctx.cache.get = async () => undefined;
        ctx.cache.set = async () => undefined;
        ctx.cache.wrap = async (_k, _t, compute) => compute();
      }
      registerJobs(ctx);
      const server: Server = await new Promise((resolve) => {
        const s = buildApp(ctx).listen(0, '127.0.0.1', () => resolve(s));
      });
      return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1` };
    };
    const cached = await start(false);
    const uncached = await start(true);
    const guest = (await db.raw(`select donor_name from donations where donor_user_id is null and not anonymous and donor_name is not null limit 1`)).rows[0]?.donor_name ?? 'Bench';
    let k = 0;
    const pick = <T>(xs: T[]) => xs[k++ % xs.length]!;
    const QS = ['school', 'bench person 12', 'food team', 'garden', String(guest).slice(0, 12), 'vacination'];
    const scenarios: Array<{ name: string; on: { base: string }; path: () => string; explain?: string }> = [
      { name: 'search scope=all (6 queries rotated)', on: uncached, path: () => `/search?q=${encodeURIComponent(pick(QS))}`, explain: '/search?q=school' },
      { name: 'search scope=all offset=20', on: uncached, path: () => `/search?q=${encodeURIComponent(pick(QS))}&offset=20` },
      { name: 'search scope=users', on: uncached, path: () => '/search?q=bench%20person%2012&scope=users', explain: '/search?q=bench%20person%2012&scope=users' },
      { name: 'search scope=donors (guest name)', on: uncached, path: () => `/search?q=${encodeURIComponent(String(guest).slice(0, 12))}&scope=donors`, explain: `/search?q=${encodeURIComponent(String(guest).slice(0, 12))}&scope=donors` },
      { name: 'home activity limit=20, uncached', on: uncached, path: () => `/home/activity?lang=${pick(['en', 'es'])}`, explain: '/home/activity?limit=50' },
      { name: 'home activity limit=50, uncached', on: uncached, path: () => '/home/activity?limit=50' },
      { name: 'home activity, 15 s server cache', on: cached, path: () => '/home/activity' },
    ];
    const results: Array<{ name: string; r: LoadResult }> = [];
    for (const s of scenarios) {
      await runLoad(s.on.base, s.path, { requests: 20, seconds: 10, concurrency: 2 });
      const r = await runLoad(s.on.base, s.path, { requests: REQUESTS, seconds: SECONDS, concurrency: CONCURRENCY });
      results.push({ name: s.name, r });
      log(`${s.name}: ${r.requests} req, ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, errors ${r.errors}`);
    }

    // EXPLAIN of the exact statements one request ran.
    const plans: Array<{ path: string; sql: string; plan: string }> = [];
    const pg = new Client({ connectionString: url });
    await pg.connect();
    for (const s of scenarios.filter((x) => x.explain)) {
      const seen: Captured[] = [];
      const onQuery = (q: { sql: string; bindings?: unknown[] }) => {
        if (/^\s*select/i.test(q.sql) || /^\s*with/i.test(q.sql)) seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
      };
      db.on('query', onQuery);
      await fetch(uncached.base + s.explain!, { headers: { 'X-Forwarded-For': '10.250.0.1' } }).then((r) => r.arrayBuffer());
      db.off('query', onQuery);
      for (const q of seen) {
        if (/from "?(users|app_secrets|feature_flags|rate)/i.test(q.sql) && !/search|ilike|%/.test(q.sql)) continue;
        const r = await pg.query(`explain (analyze, buffers) ${q.sql}`, q.bindings);
        plans.push({ path: s.explain!, sql: q.sql, plan: r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n') });
      }
    }
    await pg.end();
    cached.server.close();
    uncached.server.close();
    report(counts, results, plans);
  } finally {
    await db.destroy();
  }
}

function report(counts: Record<string, string>, results: Array<{ name: string; r: LoadResult }>, plans: Array<{ path: string; sql: string; plan: string }>) {
  const n = (v: string) => Number(v).toLocaleString('en');
  const time = (p: string) => /Execution Time: ([\d.]+) ms/.exec(p)?.[1] ?? '?';
  const lines = [
    '<!-- search:start -->',
    `## Search and home activity at scale (bench/search-activity.ts, ${new Date().toISOString().slice(0, 10)})`,
    '',
    `${n(counts.f)} campaigns, ${n(counts.d)} gifts, ${n(counts.u)} users (the leaderboard bench's data), ${n(counts.a)} achievements, ` +
      `${n(counts.c)} referral clicks, 50,000 visits through shared links in the last hour, 2,000 visitors on pages now. ` +
      `The real app over HTTP on 127.0.0.1, ${CONCURRENCY} concurrent clients, at most ${REQUESTS} requests or ${SECONDS} s per row; ` +
      `Postgres and the app on ${os.cpus().length} cores shared with other work. "uncached" rows run on a server whose cache keeps nothing.`,
    '',
    '| route | requests | req/s | p50 ms | p99 ms | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...results.map(({ name, r }) => `| ${name} | ${r.requests} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} |`),
    '',
    'Statements of one request each (execution time from EXPLAIN ANALYZE):',
    '',
    ...plans.map((p) => `- \`${p.path}\`: ${time(p.plan)} ms — \`${p.sql.replace(/\s+/g, ' ').slice(0, 110)}…\``),
    '',
    ...plans.flatMap((p) => ['<details><summary>' + p.path + ': ' + p.sql.replace(/\s+/g, ' ').slice(0, 80).replace(/</g, '&lt;') + '</summary>', '', '```sql', p.sql.trim(), '```', '', '```', p.plan, '```', '', '</details>', '']),
    '<!-- search:end -->',
  ];
  writeLatestRun('search-activity', {
    title: 'Search and home activity at scale (`npx tsx bench/search-activity.ts`)',
    summary: 'search and home activity at scale',
    body: lines.join('\n').replace(/^## Search and home activity at scale[^\n]*/m, '## Latest run'),
  });
  log('bench/results/search-activity.md updated');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
