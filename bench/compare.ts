/**
 * Side by side: the API's hot public reads against a bare node:http + pg handler that runs the
 * same SQL (captured from the API's own repository functions) for the same rows and writes the
 * rows as JSON. Each side is its own process with a 10-connection pool; wrk drives both with the
 * same connection count, every request with its own X-Forwarded-For, in interleaved slices
 * (app, bare, then bare, app, ...) so machine noise hits both. Writes its section of RESULTS.md.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:compare
 *   COMPARE_SECONDS=10 COMPARE_ROUNDS=3 COMPARE_CONNECTIONS=64 BENCH_CAMPAIGNS=100000
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { BENCH_DB, benchDatabaseUrl, ensureSeeded } from './db';
import { serveApp, serveBare } from './compare-servers';
import { wrkScript } from './wrk';

const N = Number(process.env.BENCH_CAMPAIGNS ?? 100_000);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 10);
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.COMPARE_CONNECTIONS ?? 64);
const log = (m: string) => process.stdout.write(`[compare] ${m}\n`);

interface Wrk {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time (user + system) the server process spent during the slice, ms. */
  cpuMs: number;
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's CPU time so far (ms), from /proc (Linux); NaN elsewhere. */
function cpuMsOf(pid: number | undefined): number {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

function ms(v: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(v.trim());
  if (!m) return NaN;
  return Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[m[2]!]!;
}

function wrk(url: string, script: string, seconds: number, pid?: number): Wrk {
  const cpuBefore = cpuMsOf(pid);
  const out = execFileSync('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const requests = num(/(\d+) requests in/);
  const took = /requests in ([\d.]+)(ms|s|m)/.exec(out);
  const secs = took ? Number(took[1]) * (took[2] === 'ms' ? 0.001 : took[2] === 'm' ? 60 : 1) : seconds;
  const errors = num(/Non-2xx or 3xx responses: (\d+)/) + num(/Socket errors: connect (\d+)/);
  const cpuMs = cpuMsOf(pid) - cpuBefore;
  // Anchored at the line start: the thread-stats line's "+/- Stdev" column can end in "50%" too.
  const pct = (p: number) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '');
  return { requests, seconds: secs, rps: requests / secs, p50: pct(50), p99: pct(99), errors, cpuMs };
}


function start(mode: 'app' | 'bare', databaseUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, mode], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    child.stdout!.on('data', (b: Buffer) => {
      const m = /port=(\d+)/.exec(b.toString());
      if (m) resolve({ child, port: Number(m[1]) });
    });
  });
}

async function orchestrate() {
  const databaseUrl = await benchDatabaseUrl();
  if (!databaseUrl) throw new Error('set DATABASE_URL (the bench database is created on that server)');
  const config = parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: databaseUrl });
  const handle = await connectDatabase(config, { statementTimeoutMs: 0 }); // seeding runs long statements
  await ensureSeeded(handle.db, N, log);
  const live = `slug like 'bench-%' and deleted_at is null and visibility = 'public' and status = 'active'`;
  const rows: Array<{ id: string; slug: string }> = (
    await handle.db.raw(`select id, slug from fundraisers where ${live} order by random() limit 500`)
  ).rows;
  await handle.close();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-compare-'));
  const scenarios = [
    { name: 'GET /fundraisers/slug/{slug}', script: wrkScript(dir, 'slug', rows.map((r) => `/api/v1/fundraisers/slug/${r.slug}`)) },
    { name: 'GET /fundraisers/{id}', script: wrkScript(dir, 'id', rows.map((r) => `/api/v1/fundraisers/${r.id}`)) },
    { name: 'GET /fundraisers', script: wrkScript(dir, 'list', [0, 0, 0, 20, 40].map((o) => `/api/v1/fundraisers?offset=${o}`)) },
  ];
  const servers = { app: await start('app', databaseUrl), bare: await start('bare', databaseUrl) };
  const loadBefore = os.loadavg();
  const totals = new Map<string, { app: Wrk[]; bare: Wrk[] }>();
  try {
    for (const s of scenarios) for (const side of ['app', 'bare'] as const) wrk(`http://127.0.0.1:${servers[side].port}`, s.script, 2);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const s of scenarios) {
        const order = round % 2 === 0 ? (['app', 'bare'] as const) : (['bare', 'app'] as const);
        const t = totals.get(s.name) ?? { app: [], bare: [] };
        for (const side of order) {
          const r = wrk(`http://127.0.0.1:${servers[side].port}`, s.script, SECONDS, servers[side].child.pid);
          t[side].push(r);
          log(
            `round ${round + 1} ${s.name} ${side}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ` +
              `CPU ${((r.cpuMs / r.requests) * 1000).toFixed(0)} us/request, errors ${r.errors}`,
          );
        }
        totals.set(s.name, t);
      }
    }
  } finally {
    servers.app.child.kill('SIGTERM');
    servers.bare.child.kill('SIGTERM');
  }
  writeSection(totals, loadBefore, os.loadavg());
}

function writeSection(totals: Map<string, { app: Wrk[]; bare: Wrk[] }>, before: number[], after: number[]) {
  const sum = (xs: Wrk[]) =>
    xs.reduce((a, x) => ({ r: a.r + x.requests, s: a.s + x.seconds, e: a.e + x.errors, c: a.c + x.cpuMs }), { r: 0, s: 0, e: 0, c: 0 });
  const cpuLines: string[] = [];
  const lines = [...totals].map(([name, t]) => {
    const a = sum(t.app);
    const b = sum(t.bare);
    const ratios = t.app.map((x, i) => (x.rps / t.bare[i]!.rps).toFixed(2)).join(', ');
    const p = (xs: Wrk[]) => `${Math.max(...xs.map((x) => x.p50)).toFixed(1)} / ${Math.max(...xs.map((x) => x.p99)).toFixed(1)}`;
    const us = (x: { r: number; c: number }) => (x.c / x.r) * 1000;
    cpuLines.push(`| ${name} | ${us(a).toFixed(0)} | ${us(b).toFixed(0)} | ${(us(b) / us(a)).toFixed(2)}x |`);
    return `| ${name} | ${(a.r / a.s).toFixed(0)} | ${(b.r / b.s).toFixed(0)} | **${(a.r / a.s / (b.r / b.s)).toFixed(2)}x** | ${ratios} | ${p(t.app)} | ${p(t.bare)} | ${a.e} / ${b.e} |`;
  });
  const cpu = os.cpus();
  const section = [
    '<!-- compare:start -->',
    '## API vs a bare node:http + pg handler (same SQL, same rows)',
    '',
    `Run ${new Date().toISOString()} with \`npm run bench:compare\` on ${cpu.length} x ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, ` +
      `database ${BENCH_DB} (${N} seeded campaigns) on the machine's Postgres. wrk, 2 threads, ${CONNECTIONS} connections, ` +
      `every request its own X-Forwarded-For; ${ROUNDS} rounds of ${SECONDS} s slices per side, interleaved (app then bare, ` +
      'then bare then app) after a 2 s warm-up each. Both servers are separate Node processes with a 10-connection pool.',
    '',
    `The machine is shared with other work (load average ${before.map((x) => x.toFixed(1)).join(' / ')} before, ` +
      `${after.map((x) => x.toFixed(1)).join(' / ')} after, on ${cpu.length} cores): absolute numbers are noisy; the ratio of ` +
      'interleaved slices is the figure to read, and the per-round ratios show its spread.',
    '',
    '| read | API req/s | bare req/s | ratio | per-round ratios | API p50 / p99 ms (worst slice) | bare p50 / p99 ms | non-2xx API / bare |',
    '|---|---|---|---|---|---|---|---|',
    ...lines,
    '',
    'The bare handler runs the SQL the API\'s repository builds (captured from `readDetail` and `listCards` at start) and ' +
      'writes the raw rows as JSON: no routing, rate limiting, validation, credential check, logging, visibility rule, ' +
      'serialiser or ETag. The list side uses the API\'s cache-hit query (no count) and a total counted once at start, as ' +
      'the API serves it from its 30 s count cache.',
    '',
    'CPU time of each server process per request over the same slices (user + system, from /proc; a machine busy with ' +
      'other work slows both sides\' wall clock but much less their CPU per request, so this is the steadier figure). ' +
      'The throughput ratio follows it when both processes get the same CPU share:',
    '',
    '| read | API CPU us/request | bare CPU us/request | bare / API |',
    '|---|---|---|---|',
    ...cpuLines,
    '',
    'Before the pipeline work below (same script, 2026-11-23, load average 10-20): slug 0.34x, `{id}` 0.41x, list 0.40x ' +
      '(per-round 0.30-0.55).',
    '',
    'Where the API\'s time went, and what the pipeline does about it (CPU per request of one server process under wrk, ' +
      '64 connections, slug read, measured one at a time on 2026-11-23; the machine was loaded, so +-15%):',
    '',
    '- Express itself: `app.handle` gives every request and response the app\'s prototypes (`Object.setPrototypeOf`), which ' +
      'makes V8 reshape both objects on every request. A one-route Express 5 app cost ~90 us/request against ~17 us for ' +
      'node:http with the same body; with requests and responses created from classes whose prototypes already are the ' +
      'app\'s (src/app.ts `bornWithAppPrototypes`, used by `app.listen`), ~26 us. The API\'s slug read went from ~400 to ~240 us.',
    '- The rest of the pipeline, before it: pino-http (child logger and listeners per request even at level silent), helmet ' +
      '(13 middlewares), cors, cookie-parser, csrf, two body parsers and ~70 route patterns tested in order, each its own ' +
      'Express layer. Now: one request-log step (request id always; listener only when the level logs), helmet\'s and ' +
      'cors\'s headers computed once at start and set in one step (preflights still go through cors), cookies + CSRF + body ' +
      'in one step that skips both parsers when the request has no body, one router per first path segment picked by a ' +
      'map lookup, the global limiter\'s skip list tested before its async machinery, and a guest (no Cookie, no ' +
      'Authorization) never calls the credential resolver. With the route returning a fixed body, the whole pipeline is ' +
      '~160 us before the prototype change.',
    '- The route: one statement (as before), the serialiser, one JSON.stringify whose bytes are hashed (sha1, one-shot ' +
      '`crypto.hash`) and written directly. The per-IP `public` limiter with a new address per request costs ~5-10 us ' +
      '(its memory store keeps one entry per address for the window: more GC).',
    '- What is left is mostly shared with the bare side: socket writes to the client and to Postgres (`writev` ~25% of ' +
      'wall-clock samples, kernel time inflated by the loaded machine), pg\'s row parsing, GC (~7%, bare ~2%).',
    '<!-- compare:end -->',
  ].join('\n');
  const file = path.join(__dirname, 'RESULTS.md');
  const md = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const re = /<!-- compare:start -->[\s\S]*<!-- compare:end -->/;
  fs.writeFileSync(file, re.test(md) ? md.replace(re, section) : `${md.trimEnd()}\n\n${section}\n`);
  log('wrote the comparison into bench/RESULTS.md');
}

const mode = process.argv[2];
const run = mode === 'app' ? serveApp : mode === 'bare' ? serveBare : orchestrate;
run().catch((err) => {
  process.stderr.write(`compare failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
