/**
 * For docs/operations/scaling.md: throughput and CPU per request of 1, 2 and 3 API processes on
 * this machine, and the CPU per request of the main reads in one process. Starts 3 API servers
 * (bench/compare-servers.ts serveApp, as `npm start` runs it, each with its own 10-connection pool);
 * for N = 1..3 drives guest slug reads (read-cache hits) at the first N ports at once, 64
 * connections split between them, every request its own X-Forwarded-For. Then, on one process:
 * the guest list (hit), the signed-in slug read (credential check, cached guest bytes).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_DB=cf_bench_hit npx tsx bench/scale-curve.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { benchDatabaseUrl, ensureSeeded } from './db';
import { runLoad } from './load-gen';
import { runBench } from './deadline';
import { cpuMsOf, startServedApp, type ServedApp } from './served-app';

const SECONDS = Number(process.env.COMPARE_SECONDS ?? 10);
const CONNECTIONS = 64;
const log = (m: string) => process.stdout.write(`[scale] ${m}\n`);

/** The machine's CPU ticks, all and idle (idle + iowait), from /proc/stat. */
function machineTicks(): { total: number; idle: number } {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { total: f.reduce((x, y) => x + y, 0), idle: f[3]! + f[4]! };
}

async function main() {
  const databaseUrl = await benchDatabaseUrl();
  if (!databaseUrl) throw new Error('set DATABASE_URL');
  const config = parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: databaseUrl });
  const handle = await connectDatabase(config, { statementTimeoutMs: 0 });
  await ensureSeeded(handle.db, 2000, log);
  const slugs: string[] = (
    await handle.db.raw(`select slug from fundraisers where slug like 'bench-%' and deleted_at is null and visibility = 'public' and status = 'active' order by slug limit 200`)
  ).rows.map((r: { slug: string }) => `/api/v1/fundraisers/slug/${r.slug}`);
  await handle.close();
  const apps: Array<ServedApp> = [];
  for (let i = 0; i < 3; i += 1) apps.push(await startServedApp(databaseUrl));
  const load1 = (a: ServedApp, paths: string[], seconds: number, connections: number, headers?: Record<string, string>) =>
    runLoad(`http://127.0.0.1:${a.port}`, paths, { connections, seconds, headers });
  try {
    for (const a of apps) await load1(a, slugs, 3, 16); // fill each process's cache, warm V8
    // Two curves: the cheapest answer (a hit, where the load generator's own CPU competes with the
    // API's) and a read that does real work (the signed-in read: API CPU plus a Postgres query).
    const curves: Array<[string, (a: ServedApp) => Record<string, string> | undefined]> = [
      ['guest slug read (cache hit)', () => undefined],
      ['signed-in slug read', (a) => ({ Authorization: `Bearer ${a.token}` })],
    ];
    for (const [curve, headersOf] of curves) {
      for (const a of apps) await load1(a, slugs, 2, 16, headersOf(a));
      for (let n = 1; n <= 3; n += 1) {
        const used = apps.slice(0, n);
        const before = used.map((a) => cpuMsOf(a.child.pid));
        const gen0 = process.cpuUsage();
        const machine0 = machineTicks();
        const rs = await Promise.all(used.map((a) => load1(a, slugs, SECONDS, Math.round(CONNECTIONS / n), headersOf(a))));
        const machine1 = machineTicks();
        const gen = process.cpuUsage(gen0);
        const cpu = used.reduce((s, a, i) => s + cpuMsOf(a.child.pid) - before[i]!, 0);
        const req = rs.reduce((s, r) => s + r.requests, 0);
        const rps = rs.reduce((s, r) => s + r.rps, 0);
        const errors = rs.reduce((s, r) => s + r.errors, 0);
        const cores = (ms: number) => (ms / 1000 / SECONDS).toFixed(2);
        const busy = 1 - (machine1.idle - machine0.idle) / (machine1.total - machine0.total);
        log(
          `CURVE ${curve}, processes=${n}: ${rps.toFixed(0)} req/s, ${((cpu * 1000) / req).toFixed(0)} us API CPU/request, ` +
            `API ${cores(cpu)} cores, load generator ${cores((gen.user + gen.system) / 1000)} cores, machine ${(busy * 100).toFixed(0)}% busy, ${errors} errors, load ${os.loadavg()[0]!.toFixed(1)}`,
        );
      }
    }
    const a = apps[0]!;
    const routes: Array<[string, string[], Record<string, string> | undefined]> = [
      ['guest list (cache hit)', [0, 0, 0, 20, 40].map((o) => `/api/v1/fundraisers?offset=${o}`), undefined],
      ['signed-in slug read (credential check, cached guest bytes)', slugs, { Authorization: `Bearer ${a.token}` }],
      ['guest slug read (cache hit)', slugs, undefined],
    ];
    for (const [name, paths, headers] of routes) {
      await load1(a, paths, 2, CONNECTIONS, headers);
      const before = cpuMsOf(a.child.pid);
      const r = await load1(a, paths, SECONDS, CONNECTIONS, headers);
      log(`ROUTE ${name}: ${r.rps.toFixed(0)} req/s, ${(((cpuMsOf(a.child.pid) - before) * 1000) / r.requests).toFixed(0)} us CPU/request, p50 ${r.p50} ms, ${r.errors} errors`);
    }
  } finally {
    for (const a of apps) a.child.kill('SIGTERM');
  }
}

void runBench('scale-curve', 900, () => main());
