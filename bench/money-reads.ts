/**
 * Public reads before and after the 1M gifts: one API process on cf_money_base (no gifts) and
 * one on cf_money_1m (its copy plus 1M gifts; same ids and slugs), wrk on the same paths at the
 * same connection count, in interleaved slices (before, after, then after, before, ...), then
 * EXPLAIN (ANALYZE, BUFFERS) of each read's one statement on both databases.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, type PoolClient } from 'pg';
import { createDb, type Db } from '../src/db/knex';
import { listCards, type ListFilter } from '../src/modules/discovery/discovery.reads';
import { readDetail } from '../src/modules/fundraisers/fundraisers.repo';
import { startApi, type Api } from './money-api';
import { HOT_SQL } from './money-seed';
import { captureStatement as capture, wrkScript } from './wrk';

const SECONDS = Number(process.env.READS_SECONDS ?? 6);
const ROUNDS = Number(process.env.READS_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.READS_CONNECTIONS ?? 32);

export interface Wrk { requests: number; seconds: number; rps: number; p50: number; p99: number; errors: number }
export interface ReadsResult {
  connections: number; seconds: number; rounds: number;
  scenarios: Array<{ name: string; before: Wrk[]; after: Wrk[] }>;
  plans: Array<{ name: string; db: 'before' | 'after'; sql: string; plan: string; ms: number }>;
  data: Record<string, unknown>;
  load: { before: number[]; after: number[] };
}

const ms = (v: string) => {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(v.trim());
  return m ? Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[m[2]!]! : NaN;
};

function wrk(url: string, script: string, seconds: number): Wrk {
  let out: string;
  try {
    out = execFileSync('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  } catch (err) {
    // wrk is a system package (Debian/Ubuntu: apt-get install wrk), not an npm dependency.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('the money reads bench needs wrk on PATH (apt-get install wrk)');
    throw err;
  }
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const took = /requests in ([\d.]+)(ms|s|m)/.exec(out);
  const secs = took ? Number(took[1]) * (took[2] === 'ms' ? 0.001 : took[2] === 'm' ? 60 : 1) : seconds;
  const requests = num(/(\d+) requests in/);
  // Anchored to the latency distribution: the thread-stats line's "+/- Stdev" column may end in "50%" too.
  return {
    requests, seconds: secs, rps: requests / secs,
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ''), p99: ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
    errors: num(/Non-2xx or 3xx responses: (\d+)/) + num(/Socket errors: connect (\d+)/),
  };
}



const listFilter: ListFilter = { status: 'all', categoryIds: null, q: null, projects: null, sort: 'newest', lang: null, limit: 20, offset: 0, near: null };

/** EXPLAIN (ANALYZE, BUFFERS) of each read's statement after one warm run (a steady-state plan, not a cold cache). */
async function explainAll(url: string, which: 'before' | 'after', reads: Array<{ name: string; call: (db: Db) => Promise<unknown> }>) {
  const db = createDb(url, { max: 1 });
  const out: ReadsResult['plans'] = [];
  try {
    const qs = [];
    for (const r of reads) qs.push({ name: r.name, ...(await capture(db, () => r.call(db))) });
    const conn = (await db.client.acquireConnection()) as PoolClient;
    try {
      for (const q of qs) {
        await conn.query(q.sql, q.bindings);
        // The fastest of five: on a shared machine one run's time is as much the scheduler's as the plan's.
        let best: { plan: string; ms: number } | null = null;
        for (let i = 0; i < 5; i++) {
          const res = await conn.query(`explain (analyze, buffers) ${q.sql}`, q.bindings);
          const plan = res.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
          const t = Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1] ?? NaN);
          if (!best || t < best.ms) best = { plan, ms: t };
        }
        out.push({ name: q.name, db: which, sql: q.sql.replace(/\s+/g, ' ').trim(), ...best! });
      }
    } finally {
      await db.client.releaseConnection(conn);
    }
  } finally {
    await db.destroy();
  }
  return out;
}

export async function runReads(baseUrl: string, moneyUrl: string, log: (m: string) => void): Promise<ReadsResult> {
  const c = new Client({ connectionString: moneyUrl });
  await c.connect();
  const hot = (await c.query(HOT_SQL)).rows[0] as { id: string; slug: string };
  const top = (await c.query(`select id, slug, donation_count from fundraisers where visibility = 'public' and deleted_at is null
    and id <> $1 order by donation_count desc limit 1`, [hot.id])).rows[0];
  const rows: Array<{ id: string; slug: string }> = (await c.query(`select id, slug from fundraisers where slug like 'bench-%'
    and status = 'active' and visibility = 'public' and deleted_at is null order by random() limit 500`)).rows;
  const data = (await c.query(`select (select count(*) from donations)::int gifts, (select count(*) from ledger_entries)::int entries,
    (select count(*) from fundraiser_donors)::int donor_rows,
    (select count(*) from donations where fundraiser_id = $1 and status = 'paid' and paid_at > now() - interval '24 hours')::int hot_24h,
    (select percentile_cont(0.5) within group (order by donation_count) from fundraisers where donation_count > 0)::float median_gifts,
    (select count(*) from fundraisers where donation_count > 0)::int campaigns_with_gifts,
    pg_size_pretty(pg_total_relation_size('donations')) donations_size, pg_size_pretty(pg_total_relation_size('ledger_entries')) ledger_size`,
  [hot.id])).rows[0];
  await c.end();
  Object.assign(data, { hot_slug: hot.slug, top_slug: top.slug, top_gifts: top.donation_count });
  log(`data: ${JSON.stringify(data)}`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-money-reads-'));
  const scenarios = [
    { name: 'GET /fundraisers/slug/{slug}', script: wrkScript(dir, 'slug', rows.map((r) => `/api/v1/fundraisers/slug/${r.slug}`)) },
    { name: 'GET /fundraisers/{id}', script: wrkScript(dir, 'id', rows.map((r) => `/api/v1/fundraisers/${r.id}`)) },
    { name: 'GET /fundraisers', script: wrkScript(dir, 'list', [0, 0, 0, 20, 40].map((o) => `/api/v1/fundraisers?offset=${o}`)) },
    { name: `GET /fundraisers/slug/{slug}, the campaign with ${data.hot_24h} gifts in 24 h`, script: wrkScript(dir, 'hot', [`/api/v1/fundraisers/slug/${hot.slug}`]) },
  ];
  const servers: Record<'before' | 'after', Api> = { before: await startApi(baseUrl), after: await startApi(moneyUrl) };
  const loadBefore = os.loadavg();
  const results = scenarios.map((s) => ({ name: s.name, before: [] as Wrk[], after: [] as Wrk[] }));
  try {
    for (const s of scenarios) for (const side of ['before', 'after'] as const) wrk(servers[side].base, s.script, 2);
    for (let round = 0; round < ROUNDS; round++) {
      scenarios.forEach((s, i) => {
        const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
        for (const side of order) {
          const r = wrk(servers[side].base, s.script, SECONDS);
          results[i]![side].push(r);
          log(`round ${round + 1} ${s.name} ${side}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, errors ${r.errors}`);
        }
      });
    }
  } finally {
    await servers.before.stop();
    await servers.after.stop();
  }
  const loadAfter = os.loadavg();

  const reads = [
    { name: 'slug read, a typical campaign', call: (db: Db) => readDetail(db, { slug: rows[0]!.slug }, undefined) },
    { name: `slug read, the campaign with the most gifts (${top.donation_count})`, call: (db: Db) => readDetail(db, { slug: top.slug }, undefined) },
    { name: `slug read, the campaign with ${data.hot_24h} gifts in the last 24 h`, call: (db: Db) => readDetail(db, { slug: hot.slug }, undefined) },
    { name: 'list, first page (count cached)', call: (db: Db) => listCards(db, listFilter, { knownTotal: 0 }) },
  ];
  const plans = [...(await explainAll(baseUrl, 'before', reads)), ...(await explainAll(moneyUrl, 'after', reads))];
  for (const p of plans) log(`plan ${p.db} ${p.name}: ${p.ms} ms`);
  return { connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, scenarios: results, plans, data, load: { before: loadBefore, after: loadAfter } };
}
