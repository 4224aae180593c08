/**
 * Side by side: the API's hot public reads against two bare node:http + pg handlers for the same
 * rows: one with the minimal join (the row, its category and owner; a page of card columns),
 * one running the API's own SQL (captured from its repository functions). Each side is its own
 * process with a 10-connection pool; autocannon drives all of them with the same connection
 * count, every request with its own X-Forwarded-For, in interleaved slices (order rotating each
 * round) so machine noise hits every side. Writes bench/results/compare.md.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:compare
 *   COMPARE_SECONDS=10 COMPARE_ROUNDS=2 COMPARE_CONNECTIONS=64 BENCH_CAMPAIGNS=100000 BENCH_DB=cf_bench
 *
 * The API runs as `npm start` would (READ_CACHE on): guest reads are served by the read cache
 * once filled; a signed-in non-owner's slug read (a viewer's ID token) checks the credential and
 * answers the guest's cached bytes as private (ReadCache.viewerCopy).
 *
 * Budget: 20 minutes (BENCH_BUDGET_S), seeding included; the server processes it starts are its
 * children (the serving modes below have no budget of their own: the orchestrator stops them).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { BENCH_DB, benchDatabaseUrl, ensureSeeded } from './db';
import { serveApp, serveBare, serveMinimal } from './compare-servers';
import { runLoad, type LoadResult } from './load-gen';
import { runBench } from './deadline';
import { writeLatestRun } from './results';

const N = Number(process.env.BENCH_CAMPAIGNS ?? 100_000);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 10);
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.COMPARE_CONNECTIONS ?? 64);
const log = (m: string) => process.stdout.write(`[compare] ${m}\n`);

type Side = 'app' | 'minimal' | 'same';
interface Slice extends LoadResult {
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

async function slice(port: number, paths: string[], seconds: number, pid?: number, headers?: Record<string, string>): Promise<Slice> {
  const before = cpuMsOf(pid);
  const r = await runLoad(`http://127.0.0.1:${port}`, paths, { connections: CONNECTIONS, seconds, headers });
  return { ...r, cpuMs: cpuMsOf(pid) - before };
}

interface Started {
  child: ChildProcess;
  port: number;
  token?: string;
}

function start(mode: 'app' | 'bare' | 'minimal', databaseUrl: string): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, mode], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /port=(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]), token: /token=(\S+)/.exec(out)?.[1] });
    });
  });
}

interface Scenario {
  name: string;
  paths: string[];
  sides: Side[];
  signedIn?: boolean;
  target: number;
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

  const slugs = rows.map((r) => `/api/v1/fundraisers/slug/${r.slug}`);
  const scenarios: Scenario[] = [
    { name: 'GET /fundraisers/slug/{slug} (guest)', paths: slugs, sides: ['app', 'minimal', 'same'], target: 1.0 },
    { name: 'GET /fundraisers/{id} (guest)', paths: rows.map((r) => `/api/v1/fundraisers/${r.id}`), sides: ['app', 'minimal', 'same'], target: 1.0 },
    { name: 'GET /fundraisers (guest)', paths: [0, 0, 0, 20, 40].map((o) => `/api/v1/fundraisers?offset=${o}`), sides: ['app', 'minimal', 'same'], target: 1.0 },
    { name: 'GET /fundraisers/slug/{slug} (signed in)', paths: slugs, sides: ['app', 'minimal'], signedIn: true, target: 0.7 },
  ];
  const servers: Record<Side, Started> = {
    app: await start('app', databaseUrl),
    minimal: await start('minimal', databaseUrl),
    same: await start('bare', databaseUrl),
  };
  const auth = { Authorization: `Bearer ${servers.app.token}` };
  const loadBefore = os.loadavg();
  const totals = new Map<Scenario, Record<Side, Slice[]>>();
  try {
    // Warm-up: every side and scenario (fills the API's read cache and both sides' plans).
    for (const s of scenarios) for (const side of s.sides) await slice(servers[side].port, s.paths, 2, undefined, s.signedIn && side === 'app' ? auth : undefined);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const s of scenarios) {
        const order = round % 2 === 0 ? s.sides : [...s.sides].reverse();
        const t = totals.get(s) ?? { app: [], minimal: [], same: [] };
        for (const side of order) {
          const r = await slice(servers[side].port, s.paths, SECONDS, servers[side].child.pid, s.signedIn && side === 'app' ? auth : undefined);
          t[side].push(r);
          log(
            `round ${round + 1} ${s.name} ${side}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ` +
              `CPU ${((r.cpuMs / r.requests) * 1000).toFixed(0)} us/request, errors ${r.errors}`,
          );
        }
        totals.set(s, t);
      }
    }
  } finally {
    for (const side of Object.keys(servers) as Side[]) servers[side].child.kill('SIGTERM');
  }
  writeSection(totals, loadBefore, os.loadavg());
}

function writeSection(totals: Map<Scenario, Record<Side, Slice[]>>, before: number[], after: number[]) {
  const sum = (xs: Slice[]) =>
    xs.reduce((a, x) => ({ r: a.r + x.requests, s: a.s + x.seconds, e: a.e + x.errors, c: a.c + x.cpuMs }), { r: 0, s: 0, e: 0, c: 0 });
  const rps = (xs: Slice[]) => sum(xs).r / sum(xs).s;
  const usPer = (xs: Slice[]) => (sum(xs).c / sum(xs).r) * 1000;
  const worst = (xs: Slice[]) => (xs.length ? `${Math.max(...xs.map((x) => x.p50)).toFixed(1)} / ${Math.max(...xs.map((x) => x.p99)).toFixed(1)}` : '-');
  const lines: string[] = [];
  const cpuLines: string[] = [];
  for (const [s, t] of totals) {
    const vsMin = rps(t.app) / rps(t.minimal);
    const perRound = t.app.map((x, i) => (x.rps / t.minimal[i]!.rps).toFixed(2)).join(', ');
    const vsSame = t.same.length ? `${(rps(t.app) / rps(t.same)).toFixed(2)}x` : '-';
    const met = vsMin >= s.target ? 'met' : 'NOT met';
    lines.push(
      `| ${s.name} | ${rps(t.app).toFixed(0)} | ${rps(t.minimal).toFixed(0)} | ${t.same.length ? rps(t.same).toFixed(0) : '-'} | ` +
        `**${vsMin.toFixed(2)}x** (${perRound}) | ${vsSame} | >= ${s.target.toFixed(1)}x ${met} | ${worst(t.app)} | ${worst(t.minimal)} | ` +
        `${sum(t.app).e} / ${sum(t.minimal).e} |`,
    );
    cpuLines.push(
      `| ${s.name} | ${usPer(t.app).toFixed(0)} | ${usPer(t.minimal).toFixed(0)} | ${t.same.length ? usPer(t.same).toFixed(0) : '-'} |`,
    );
  }
  const cpu = os.cpus();
  const section = [
    '<!-- compare:start -->',
    '## API vs bare node:http + pg handlers (minimal join, and the same SQL; same rows)',
    '',
    `Run ${new Date().toISOString()} with \`npm run bench:compare\` on ${cpu.length} x ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, ` +
      `database ${BENCH_DB} (${N} seeded campaigns) on the machine's Postgres. autocannon (in the orchestrating process), ${CONNECTIONS} connections, ` +
      `every request its own X-Forwarded-For; ${ROUNDS} rounds of ${SECONDS} s slices per side, interleaved (order reversed ` +
      'every other round) after a 2 s warm-up each. Every server is a separate Node process with a 10-connection pool. The API ' +
      'runs as `npm start` does: READ_CACHE on, so guest reads are served from the read cache once filled (the 2 s warm-up ' +
      'fills it; entries live 30 s, so a few refills fall inside each slice); the signed-in read carries a viewer\'s ID token ' +
      'and, not owning the campaign, gets the guest\'s cached bytes as a private answer after the credential check.',
    '',
    `The machine is shared with other work (load average ${before.map((x) => x.toFixed(1)).join(' / ')} before, ` +
      `${after.map((x) => x.toFixed(1)).join(' / ')} after, on ${cpu.length} cores): absolute numbers are noisy; the ratio of ` +
      'interleaved slices is the figure to read, and the per-round ratios show its spread.',
    '',
    '| read | API req/s | minimal-join req/s | same-SQL req/s | API / minimal (per round) | API / same-SQL | target | API p50 / p99 ms (worst slice) | minimal p50 / p99 ms | errors API / minimal |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...lines,
    '',
    'Both bare handlers write the raw rows as JSON: no routing, rate limiting, validation, credential check, logging, ' +
      'visibility rule, serialiser or ETag. The minimal-join one runs the least SQL for the same answer (row + category + ' +
      'owner, no 24-hour count or translation; a page of card columns in the list order, no count). The same-SQL one runs ' +
      'the SQL the API\'s repository builds (captured from `readDetail` and `listCards` at start); its list uses the API\'s ' +
      'no-count query and a total counted once at start, as the API serves it from its 30 s count cache.',
    '',
    'CPU time of each server process per request over the same slices (user + system, from /proc; a machine busy with ' +
      'other work slows both sides\' wall clock but much less their CPU per request, so this is the steadier figure). ' +
      'The throughput ratio follows it when both processes get the same CPU share:',
    '',
    '| read | API CPU us/request | minimal-join CPU us/request | same-SQL CPU us/request |',
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
  writeLatestRun('compare', {
    title: 'API vs bare node:http + pg handlers (`npm run bench:compare`)',
    summary: (section.match(/\*\*[\d.]+x\*\*/g) ?? []).join(', ').replace(/\*/g, '') + ' (API / minimal handler, per read)',
    body: section.replace('## API vs bare node:http + pg handlers', '## Latest run: API vs bare node:http + pg handlers'),
  });
  log('wrote bench/results/compare.md');
}

const mode = process.argv[2];
const serve = mode === 'app' ? serveApp : mode === 'bare' ? serveBare : mode === 'minimal' ? serveMinimal : null;
if (serve) {
  serve().catch((err) => {
    process.stderr.write(`compare failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
} else void runBench('compare', 1200, () => orchestrate());
