/**
 * A read-cache hit against a bare node:http server answering the same bytes from
 * memory (the ceiling for one Node process). Both servers are child processes; the memory server
 * fetches each path once from the app and keeps body + content-type. autocannon drives each side
 * for COMPARE_SECONDS per slice, 64 connections, every request its own X-Forwarded-For, sides
 * alternating within a round so machine noise hits both; the median of the rounds' ratios counts.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_DB=cf_bench_hit npx tsx bench/hit-ratio.ts
 *   COMPARE_SECONDS=10 COMPARE_ROUNDS=3 BENCH_CAMPAIGNS=2000 HIT_LABEL=after
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { benchDatabaseUrl, ensureSeeded } from './db';
import { serveApp } from './compare-servers';
import { runLoad } from './load-gen';
import { runBench } from './deadline';
import { cpuMsOf } from './served-app';

const N = Number(process.env.BENCH_CAMPAIGNS ?? 2000);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 10);
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.COMPARE_CONNECTIONS ?? 64);
const log = (m: string) => process.stdout.write(`[hit-ratio] ${m}\n`);

/** Serves the app's answers for `paths` (fetched once from APP_PORT) from memory. */
async function serveMemory(): Promise<void> {
  const appPort = Number(process.env.APP_PORT);
  const paths: string[] = JSON.parse(process.env.HIT_PATHS ?? '[]');
  const bodies = new Map<string, { body: Buffer; type: string }>();
  for (const p of paths) {
    const r = await fetch(`http://127.0.0.1:${appPort}${p}`);
    bodies.set(p, { body: Buffer.from(await r.arrayBuffer()), type: r.headers.get('content-type') ?? 'application/json' });
  }
  const server = http.createServer((req, res) => {
    const hit = bodies.get(req.url ?? '');
    if (!hit) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': hit.type, 'Content-Length': hit.body.length });
    res.end(hit.body);
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`port=${(server.address() as AddressInfo).port}\n`));
  process.on('SIGTERM', () => process.exit(0));
}

function start(mode: string, env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...(process.env.HIT_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', __filename, mode], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${mode} exited with ${code}`)));
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /port=(\d+)/.exec(out);
      if (m) {
        // From here on only request log lines (BENCH_LOG_LEVEL=info) come: drained, not kept.
        child.stdout!.removeAllListeners('data').resume();
        resolve({ child, port: Number(m[1]) });
      }
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const databaseUrl = await benchDatabaseUrl();
  if (!databaseUrl) throw new Error('set DATABASE_URL');
  const config = parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: databaseUrl });
  const handle = await connectDatabase(config, { statementTimeoutMs: 0 });
  await ensureSeeded(handle.db, N, log);
  const rows: Array<{ slug: string }> = (
    await handle.db.raw(`select slug from fundraisers where slug like 'bench-%' and deleted_at is null and visibility = 'public' and status = 'active' order by slug limit 200`)
  ).rows;
  await handle.close();
  const scenarios = [
    { name: 'guest slug read (cache hit)', paths: rows.map((r) => `/api/v1/fundraisers/slug/${r.slug}`) },
    { name: 'guest list (cache hit)', paths: [0, 0, 0, 20, 40].map((o) => `/api/v1/fundraisers?offset=${o}`) },
  ];
  const app = await start('app', { DATABASE_URL: databaseUrl });
  const all = [...new Set(scenarios.flatMap((s) => s.paths))];
  const mem = await start('memory', { APP_PORT: String(app.port), HIT_PATHS: JSON.stringify(all) });
  try {
    for (const s of scenarios) {
      // Warm-up: fills the read cache and lets V8 optimise both servers.
      for (const port of [app.port, mem.port]) await runLoad(`http://127.0.0.1:${port}`, s.paths, { connections: CONNECTIONS, seconds: 3 });
      const ratios: number[] = [];
      const appRps: number[] = [];
      const memRps: number[] = [];
      const appCpu: number[] = [];
      const memCpu: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const order = round % 2 === 0 ? [app, mem] : [mem, app];
        const rps = new Map<number, number>();
        const cpu = new Map<number, number>();
        for (const side of order) {
          const before = cpuMsOf(side.child.pid);
          const r = await runLoad(`http://127.0.0.1:${side.port}`, s.paths, { connections: CONNECTIONS, seconds: SECONDS });
          if (r.errors > 0) log(`${s.name}: ${r.errors} errors on port ${side.port}`);
          rps.set(side.port, r.rps);
          cpu.set(side.port, ((cpuMsOf(side.child.pid) - before) * 1000) / r.requests);
        }
        appCpu.push(cpu.get(app.port)!);
        memCpu.push(cpu.get(mem.port)!);
        appRps.push(rps.get(app.port)!);
        memRps.push(rps.get(mem.port)!);
        ratios.push(rps.get(app.port)! / rps.get(mem.port)!);
        log(`${s.name} round ${round + 1}: app ${rps.get(app.port)!.toFixed(0)} req/s, memory ${rps.get(mem.port)!.toFixed(0)} req/s, ratio ${ratios.at(-1)!.toFixed(2)}; CPU us/request app ${appCpu.at(-1)!.toFixed(0)}, memory ${memCpu.at(-1)!.toFixed(0)}`);
      }
      log(`RESULT ${s.name}: app median ${median(appRps).toFixed(0)}, memory median ${median(memRps).toFixed(0)}, median ratio ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}); CPU us/request app ${median(appCpu).toFixed(0)}, memory ${median(memCpu).toFixed(0)}, CPU ratio ${(median(memCpu) / median(appCpu)).toFixed(2)}`);
    }
  } finally {
    app.child.kill('SIGTERM');
    mem.child.kill('SIGTERM');
  }
}

const mode = process.argv[2];
if (mode === 'app') void serveApp().catch((e) => { console.error(e); process.exit(1); });
else if (mode === 'memory') void serveMemory().catch((e) => { console.error(e); process.exit(1); });
else void runBench('hit-ratio', 900, () => main());
